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

#include "parallel-runs.h"

#include "progress-reporter.h"

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <iostream>
#include <memory>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

namespace ns3
{

namespace
{

/// A child process running one run.
struct Child
{
    size_t index{0};   //!< the run's index
    pid_t pid{-1};     //!< process id
    int fd{-1};        //!< read end of its pipe
    std::string bytes; //!< what it sent so far
};

/// Write all of \p data to \p fd. \return false on an error
bool
WriteAll(int fd, const char* data, size_t size)
{
    while (size > 0)
    {
        const ssize_t n = ::write(fd, data, size);
        if (n < 0)
        {
            if (errno == EINTR)
            {
                continue;
            }
            return false;
        }
        data += n;
        size -= static_cast<size_t>(n);
    }
    return true;
}

/// The child's side: run, send 'R' + the result's bytes or 'E' + the error message, _exit.
[[noreturn]] void
ChildMain(const ParallelRun& run, int fd)
{
    char tag = 'R';
    std::string payload;
    try
    {
        payload = run.work();
    }
    catch (const std::exception& e)
    {
        tag = 'E';
        payload = CruxRunError::What(e);
        const auto* run = dynamic_cast<const CruxRunError*>(&e);
        if (run && run->GetLines().size() > 1)
        {
            // several lines (one per stuck job): kept apart by the ASCII unit separator, which
            // no line holds (CruxRunError::Format writes control characters as \xNN)
            tag = 'M';
            payload.clear();
            for (const std::string& line : run->GetLines())
            {
                payload += (payload.empty() ? "" : "\x1f") + line;
            }
        }
    }
    catch (...)
    {
        tag = 'E';
        payload = "unknown exception";
    }
    const bool sent = WriteAll(fd, &tag, 1) && WriteAll(fd, payload.data(), payload.size());
    ::close(fd);
    std::cout.flush();
    std::cerr.flush();
    std::fflush(nullptr);
    // _exit: no atexit handlers or static destructors of the parent's copy
    ::_exit(tag == 'R' && sent ? 0 : 1);
}

/// \return why a child ended badly, from its wait status and what it sent
std::string
Failure(int status, const std::string& bytes)
{
    if (!bytes.empty() && bytes[0] == 'E')
    {
        return bytes.substr(1);
    }
    if (WIFSIGNALED(status))
    {
        return "child process killed by signal " + std::to_string(WTERMSIG(status)) + " (" +
               strsignal(WTERMSIG(status)) + ")";
    }
    if (WIFEXITED(status) && WEXITSTATUS(status) != 0)
    {
        return "child process exited with status " + std::to_string(WEXITSTATUS(status));
    }
    return "child process ended without a result";
}

/// Runs in child processes, at most jobs at a time (RunParallel).
class ChildPool
{
  public:
    ChildPool(const std::vector<ParallelRun>& runs, uint32_t jobs, ProgressReporter* progress)
        : m_runs(runs),
          m_jobs(jobs),
          m_progress(progress),
          m_out(runs.size())
    {
    }

    ~ChildPool()
    {
        KillAll();
    }

    std::vector<std::string> Run()
    {
        size_t next = 0;
        while ((!m_failure && next < m_runs.size()) || !m_active.empty())
        {
            while (!m_failure && m_active.size() < m_jobs && next < m_runs.size())
            {
                Start(next++);
            }
            Wait();
            if (m_progress)
            {
                m_progress->Tick();
            }
        }
        if (m_failure)
        {
            throw *m_failure;
        }
        return std::move(m_out);
    }

  private:
    /// Fork the child of run \p i.
    void Start(size_t i)
    {
        int fds[2];
        if (::pipe2(fds, O_CLOEXEC) != 0)
        {
            throw std::runtime_error("cannot create a pipe for run " + m_runs[i].name + ": " +
                                     std::strerror(errno));
        }
        // nothing buffered may be written twice (by the parent and by the child)
        std::cout.flush();
        std::cerr.flush();
        std::fflush(nullptr);
        const pid_t parent = ::getpid();
        const pid_t pid = ::fork();
        if (pid < 0)
        {
            const int err = errno;
            ::close(fds[0]);
            ::close(fds[1]);
            throw std::runtime_error("cannot start a child process for run " + m_runs[i].name +
                                     ": " + std::strerror(err));
        }
        if (pid == 0)
        {
            // A child ends with its parent (killed or not), instead of running on as an orphan
            // (Linux); the parent may have died before the call.
            ::prctl(PR_SET_PDEATHSIG, SIGTERM);
            if (::getppid() != parent)
            {
                ::_exit(1);
            }
            ::close(fds[0]);
            for (const Child& c : m_active)
            {
                ::close(c.fd);
            }
            ChildMain(m_runs[i], fds[1]);
        }
        ::close(fds[1]); // the next child must not hold this write end (EOF = this child done)
        m_active.push_back(Child{i, pid, fds[0], {}});
        if (m_progress)
        {
            m_progress->RunStarted(m_runs[i].name);
        }
    }

    /// Read what the children sent (up to one second); finish the ones whose pipe closed.
    void Wait()
    {
        std::vector<pollfd> pfds;
        for (const Child& c : m_active)
        {
            pfds.push_back(pollfd{c.fd, POLLIN, 0});
        }
        if (::poll(pfds.data(), pfds.size(), 1000) < 0)
        {
            if (errno == EINTR)
            {
                return;
            }
            throw std::runtime_error(std::string("poll: ") + std::strerror(errno));
        }
        std::vector<size_t> finished;
        char buf[65536];
        for (size_t k = 0; k < m_active.size(); ++k)
        {
            if (pfds[k].revents == 0)
            {
                continue;
            }
            const ssize_t n = ::read(m_active[k].fd, buf, sizeof(buf));
            if (n > 0)
            {
                m_active[k].bytes.append(buf, static_cast<size_t>(n));
            }
            else if (n == 0 || errno != EINTR)
            {
                finished.push_back(k);
            }
        }
        for (auto it = finished.rbegin(); it != finished.rend(); ++it)
        {
            Child c = std::move(m_active[*it]);
            m_active.erase(m_active.begin() + static_cast<std::ptrdiff_t>(*it));
            Finish(c);
        }
    }

    /// Reap a child whose pipe closed; keep its result or throw its failure.
    void Finish(Child& c)
    {
        ::close(c.fd);
        int status = 0;
        while (::waitpid(c.pid, &status, 0) < 0 && errno == EINTR)
        {
        }
        const std::string& name = m_runs[c.index].name;
        if (WIFEXITED(status) && WEXITSTATUS(status) == 0 && !c.bytes.empty() && c.bytes[0] == 'R')
        {
            m_out[c.index] = c.bytes.substr(1);
            if (m_progress)
            {
                m_progress->RunDone(name);
            }
            return;
        }
        // The failure reported is the one of the first run in the list that fails, as when the
        // runs go one after another (jobs = 1): the runs after it are killed, the ones before it
        // still running may finish (or fail first), whatever the order the children end in.
        if (m_failure && m_failureIndex < c.index)
        {
            return;
        }
        if (!c.bytes.empty() && c.bytes[0] == 'M')
        {
            std::vector<std::string> lines;
            std::size_t at = 1;
            while (at <= c.bytes.size())
            {
                const std::size_t end = std::min(c.bytes.find('\x1f', at), c.bytes.size());
                lines.push_back("run " + name + ": " + c.bytes.substr(at, end - at));
                at = end + 1;
            }
            m_failure = std::make_unique<ParallelRunError>(lines);
        }
        else
        {
            m_failure =
                std::make_unique<ParallelRunError>("run " + name + ": " + Failure(status, c.bytes));
        }
        m_failureIndex = c.index;
        KillAfter(c.index);
    }

    /// Kill and reap the children of runs after run \p index in the list.
    void KillAfter(size_t index)
    {
        for (auto it = m_active.begin(); it != m_active.end();)
        {
            if (it->index <= index)
            {
                ++it;
                continue;
            }
            ::kill(it->pid, SIGKILL);
            ::close(it->fd);
            int status = 0;
            while (::waitpid(it->pid, &status, 0) < 0 && errno == EINTR)
            {
            }
            it = m_active.erase(it);
        }
    }

    /// Kill and reap every child still running.
    void KillAll()
    {
        for (Child& c : m_active)
        {
            ::kill(c.pid, SIGKILL);
            ::close(c.fd);
            int status = 0;
            while (::waitpid(c.pid, &status, 0) < 0 && errno == EINTR)
            {
            }
        }
        m_active.clear();
    }

    const std::vector<ParallelRun>& m_runs;      //!< the runs
    uint32_t m_jobs;                             //!< children at a time
    ProgressReporter* m_progress;                //!< or null
    std::vector<std::string> m_out;              //!< results by run index
    std::vector<Child> m_active;                 //!< children running
    std::unique_ptr<ParallelRunError> m_failure; //!< the first failure in the list's order
    size_t m_failureIndex{0};                    //!< the index of m_failure's run
};

} // namespace

std::vector<std::string>
RunParallel(const std::vector<ParallelRun>& runs, uint32_t jobs, ProgressReporter* progress)
{
    if (jobs <= 1 || runs.size() <= 1)
    {
        std::vector<std::string> out;
        for (const ParallelRun& r : runs)
        {
            if (progress)
            {
                progress->RunStarted(r.name);
            }
            out.push_back(r.work());
            if (progress)
            {
                progress->RunDone(r.name);
            }
        }
        return out;
    }
    ChildPool pool(runs, jobs, progress);
    return pool.Run();
}

uint32_t
DefaultParallelJobs()
{
    const unsigned n = std::thread::hardware_concurrency();
    return n > 0 ? n : 1;
}

} // namespace ns3
