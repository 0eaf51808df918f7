/*
 * This program is free software; you can redistribute it and/or modify
 * it under the terms of the GNU General Public License version 2 as
 * published by the Free Software Foundation;
 *
 * This program is distributed in the hope that it will be useful,
 * but WITHOUT ANY WARRANTY; without even the implied warranty of
 * MERCHANTABILITY or FITNESS FOR A PARTICULAR PURPOSE.  See the
 * GNU General Public License for more details.
 *
 * You should have received a copy of the GNU General Public License
 * along with this program; if not, write to the Free Software
 * Foundation, Inc., 59 Temple Place, Suite 330, Boston, MA  02111-1307  USA
 */

#include "result-directory.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <fstream>
#include <functional>
#include <iomanip>
#include <stdexcept>
#include <thread>
#include <unistd.h>

namespace ns3
{

namespace fs = std::filesystem;

namespace
{

/// Creates \p dir (and missing parents) and a file in it, then removes the file and, if
/// \p removeDir and the probe created it, \p dir. \return "" or why it failed
std::string
ProbeWrite(const fs::path& dir, bool removeDir)
{
    std::error_code ec;
    std::vector<fs::path> created; // missing directories, outermost first
    for (fs::path p = dir; !p.empty() && !fs::exists(p, ec); p = p.parent_path())
    {
        created.insert(created.begin(), p);
        if (p.parent_path() == p)
        {
            break;
        }
    }
    std::string why;
    std::vector<fs::path> made; // the directories this call created
    for (const auto& p : created)
    {
        if (fs::create_directory(p, ec))
        {
            made.push_back(p);
            continue;
        }
        // false without an error: p exists now, made by a parallel run (e.g. of a sweep
        // sharing the parent) since the exists() above; it is not this call's to remove
        if (!ec && fs::is_directory(p, ec))
        {
            continue;
        }
        std::error_code lec;
        why = "cannot create '" + p.string() + "': " +
              (fs::is_symlink(fs::symlink_status(p, lec))
                   ? std::string("a symbolic link to nothing (missing target or a loop)")
               : ec ? ec.message()
                    : std::string("it exists and is not a directory"));
        break;
    }
    if (why.empty())
    {
        const fs::path probe = dir / (".probe-" + std::to_string(::getpid()));
        std::ofstream f(probe);
        if (!f || !(f << "probe") || (f.close(), !f))
        {
            why = "cannot write files in '" + dir.string() + "'";
        }
        fs::remove(probe, ec);
    }
    // Remove the directory itself if the probe created it; missing parents stay created (a
    // parallel run, e.g. of a sweep, may be creating its own directory in them right now).
    if (removeDir && !made.empty() && made.back() == dir)
    {
        fs::remove(dir, ec); // only if empty
    }
    return why;
}

/// Pause before attempt \p attempt (> 0) of a step that can lose a race with a parallel run:
/// 20 ms per attempt plus an offset of 0-22 ms that differs between processes and threads
/// started together, so that they do not retry in step.
void
PauseBeforeRetry(int attempt)
{
    const std::size_t offset =
        (std::hash<std::thread::id>{}(std::this_thread::get_id()) ^ ::getpid()) % 23;
    std::this_thread::sleep_for(std::chrono::milliseconds(20 * attempt + offset));
}

} // namespace

std::string
ResultDirectory::Problem(const std::string& dir,
                         const std::vector<std::string>& subdirs,
                         const std::vector<std::string>& files)
{
    std::string why = StaticProblem(dir, subdirs);
    if (why.empty())
    {
        why = FileProblem(dir, subdirs, files);
    }
    if (!why.empty())
    {
        return why;
    }
    // What the file system really allows (a read-only mount, /proc, a full quota...): create
    // and remove a probe file where the results will go.
    const fs::path out(dir);
    std::string w;
    // A parallel run's probe may remove a directory this one is creating in (runs of a sweep
    // sharing a parent): a real problem persists, a race does not, so try five times, after
    // pauses that differ between processes and threads started together.
    for (int attempt = 0; attempt < 5; ++attempt)
    {
        if (attempt > 0)
        {
            PauseBeforeRetry(attempt);
        }
        std::error_code ec;
        const bool existed = fs::exists(out, ec);
        w = ProbeWrite(out, false);
        for (size_t i = 0; i < subdirs.size() && w.empty(); ++i)
        {
            w = ProbeWrite(out / subdirs[i], true);
        }
        if (!existed)
        {
            fs::remove(out, ec); // only if empty
        }
        if (w.empty())
        {
            break;
        }
    }
    return w;
}

std::string
ResultDirectory::StaticProblem(const std::string& dir, const std::vector<std::string>& subdirs)
{
    if (dir.empty())
    {
        return "the output directory is empty";
    }
    std::error_code ec;
    const fs::path out(dir);
    // A symbolic link to nothing (dangling, or a loop) would read as missing below, and the
    // probe would then remove it as a directory it created: refuse it, and leave it alone.
    if (fs::is_symlink(fs::symlink_status(out, ec)) && !fs::exists(fs::status(out, ec)))
    {
        return "'" + out.string() + "' is a symbolic link to nothing (missing target or a loop)";
    }
    // one status call: a directory that another run's probe (ProbeWrite()) creates and removes
    // between an exists() and an is_directory() must not read as "not a directory"
    const fs::file_status st = fs::status(out, ec);
    if (fs::exists(st))
    {
        if (!fs::is_directory(st))
        {
            return "'" + out.string() + "' exists and is not a directory";
        }
        if (::access(out.c_str(), W_OK | X_OK) == 0)
        {
            for (const std::string& s : subdirs)
            {
                const fs::path sub = out / s;
                const fs::file_status sst = fs::status(sub, ec);
                if (fs::exists(sst) && !fs::is_directory(sst))
                {
                    return "'" + sub.string() + "' (the directory of " + s +
                           ") exists and is not a directory";
                }
            }
            return "";
        }
        if (errno != ENOENT)
        {
            return "'" + out.string() + "' is not writable";
        }
        // gone since the status call: a parallel run's probe removed it; judged as missing
    }
    // Not there yet: the nearest existing ancestor must be a writable directory.
    fs::path p = out.has_parent_path() ? out.parent_path() : fs::path(".");
    while (!p.empty() && !fs::exists(p, ec))
    {
        if (fs::is_symlink(fs::symlink_status(p, ec)))
        {
            return "cannot create '" + out.string() + "': '" + p.string() +
                   "' is a symbolic link to nothing (missing target or a loop)";
        }
        p = p.has_parent_path() && p.parent_path() != p ? p.parent_path() : fs::path();
    }
    if (p.empty())
    {
        p = ".";
    }
    if (!fs::is_directory(p, ec) || ::access(p.c_str(), W_OK | X_OK) != 0)
    {
        return "cannot create '" + out.string() + "': '" + p.string() +
               "' is not a writable directory";
    }
    return "";
}

std::string
ResultDirectory::FileProblem(const std::string& dir,
                             const std::vector<std::string>& subdirs,
                             const std::vector<std::string>& files)
{
    std::vector<fs::path> where;
    for (const std::string& s : subdirs)
    {
        where.push_back(fs::path(dir) / s);
    }
    if (where.empty())
    {
        where.emplace_back(dir);
    }
    for (const fs::path& d : where)
    {
        for (const std::string& f : files)
        {
            std::error_code ec;
            if (fs::is_directory(fs::status(d / f, ec)))
            {
                return "'" + (d / f).string() + "' (a result file) exists and is a directory";
            }
        }
    }
    return "";
}

ResultDirectory::ResultDirectory(const std::string& dir)
    : m_dir(dir)
{
    std::error_code ec;
    m_tmp = m_dir / (".partial-" + std::to_string(::getpid()));
    fs::remove_all(m_tmp, ec);
    // The output directory, then the partial one in it: from then on the output directory is
    // not empty, so another run's probe (Problem(), which removes an empty directory it
    // created) cannot remove it under this run. Between the two steps it can: a race, not a
    // problem of the path, so try again (five times, pauses as in Problem()).
    for (int attempt = 0; attempt < 5; ++attempt)
    {
        if (attempt > 0)
        {
            PauseBeforeRetry(attempt);
        }
        ec.clear();
        fs::create_directories(m_tmp, ec);
        if (!ec || ec != std::errc::no_such_file_or_directory)
        {
            break;
        }
    }
    if (ec || !fs::is_directory(m_dir, ec))
    {
        throw std::runtime_error(m_dir.string() + ": cannot create output directory" +
                                 (ec ? ": " + ec.message() : std::string(" (not a directory)")));
    }
}

ResultDirectory::~ResultDirectory()
{
    if (!m_committed)
    {
        m_files.clear();
        std::error_code ec;
        fs::remove_all(m_tmp, ec);
    }
}

std::ostream&
ResultDirectory::Open(const std::string& name)
{
    auto f = std::make_unique<std::ofstream>(m_tmp / name);
    if (!*f)
    {
        throw std::runtime_error((m_tmp / name).string() + ": cannot write");
    }
    *f << std::setprecision(9);
    m_names.push_back(name);
    m_files.push_back(std::move(f));
    return *m_files.back();
}

void
ResultDirectory::Retire(const std::string& name)
{
    m_retired.push_back(name);
}

void
ResultDirectory::Close()
{
    if (m_closed)
    {
        return;
    }
    for (size_t i = 0; i < m_files.size(); ++i)
    {
        errno = 0;
        m_files[i]->close();
        if (!*m_files[i])
        {
            // the stream keeps no reason; errno holds the failed write's (e.g. ENOSPC)
            const int err = errno;
            throw std::runtime_error(
                (m_tmp / m_names[i]).string() + ": cannot write" +
                (err != 0 ? ": " + std::error_code(err, std::generic_category()).message()
                          : std::string()));
        }
    }
    m_files.clear();
    const std::string why = FileProblem(m_dir.string(), {}, m_names);
    if (!why.empty())
    {
        throw std::runtime_error(why);
    }
    m_closed = true;
}

void
ResultDirectory::Commit()
{
    CommitAll({this});
}

void
ResultDirectory::CommitAll(const std::vector<ResultDirectory*>& dirs)
{
    for (ResultDirectory* d : dirs)
    {
        d->Close();
    }

    // One step per file: the earlier file (if any) moved aside into the partial folder, then
    // the new one moved into place. On a failure the steps done are undone in reverse.
    struct Step
    {
        fs::path target; //!< the result file
        fs::path fresh;  //!< the new file, in the partial folder ("" for a retired file)
        fs::path old;    //!< where the earlier file was moved ("" if there was none)
    };

    std::vector<Step> done;
    auto undo = [&done]() {
        for (auto it = done.rbegin(); it != done.rend(); ++it)
        {
            std::error_code ec;
            if (!it->fresh.empty())
            {
                fs::rename(it->target, it->fresh, ec);
            }
            if (!it->old.empty())
            {
                fs::rename(it->old, it->target, ec);
            }
        }
    };
    for (ResultDirectory* d : dirs)
    {
        for (const auto& name : d->m_names)
        {
            Step step{d->m_dir / name, d->m_tmp / name, fs::path()};
            std::error_code ec;
            if (fs::exists(fs::symlink_status(step.target, ec)))
            {
                const fs::path old = d->m_tmp / (name + ".replaced");
                fs::rename(step.target, old, ec);
                if (ec)
                {
                    undo();
                    throw std::runtime_error(step.target.string() +
                                             ": cannot replace: " + ec.message());
                }
                step.old = old;
            }
            fs::rename(step.fresh, step.target, ec);
            if (ec)
            {
                std::error_code back;
                if (!step.old.empty())
                {
                    fs::rename(step.old, step.target, back);
                }
                undo();
                throw std::runtime_error(step.target.string() + ": cannot write: " + ec.message());
            }
            done.push_back(step);
        }
        for (const auto& name : d->m_retired)
        {
            // an earlier run's optional file this run did not write: moved aside with the
            // replaced ones, so that a failure restores it and a success removes it
            const fs::path target = d->m_dir / name;
            std::error_code ec;
            const fs::file_status st = fs::symlink_status(target, ec);
            if (std::find(d->m_names.begin(), d->m_names.end(), name) != d->m_names.end() ||
                !(fs::is_regular_file(st) || fs::is_directory(st)))
            {
                continue; // absent, or a link or special file: not a result of ours
            }
            const fs::path old = d->m_tmp / (name + ".replaced");
            fs::rename(target, old, ec);
            if (ec)
            {
                undo();
                throw std::runtime_error(target.string() + ": cannot remove: " + ec.message());
            }
            done.push_back(Step{target, fs::path(), old});
        }
    }
    for (ResultDirectory* d : dirs)
    {
        std::error_code ec;
        fs::remove_all(d->m_tmp, ec);
        d->m_committed = true;
    }
}

const fs::path&
ResultDirectory::GetPath() const
{
    return m_dir;
}

} // namespace ns3
