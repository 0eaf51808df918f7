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

#ifndef CRUX_RESULT_DIRECTORY_H
#define CRUX_RESULT_DIRECTORY_H

#include <filesystem>
#include <fstream>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup crux
 * \brief Writes the result files of one run into a directory the user chose, all or nothing:
 * the files are written into a hidden sibling folder "<dir>/.partial-<pid>" and moved into
 * <dir> only by Commit(); a run that fails half-way leaves the files of an earlier run as they
 * were. The one result writer of the experiment drivers (scenario runs, trace runs).
 *
 * Use Problem() before simulating, so that a bad location is reported before a long run:
 * \code
 *   if (auto why = ResultDirectory::Problem(dir); !why.empty()) { ... }  // before the run
 *   ...
 *   ResultDirectory out(dir);
 *   out.Open("jobs.csv") << "job,jct_s\n" << ...;
 *   out.Commit();
 * \endcode
 * Errors are std::runtime_error whose message names the path.
 */
class ResultDirectory
{
  public:
    /**
     * \brief Check that \p dir is, or can be created as, a writable directory, leaving
     * nothing behind: an existing \p dir must be a writable directory, and every listed
     * subdirectory of it that exists must be a directory; a missing \p dir needs a writable
     * nearest existing ancestor. Then a probe file is created and removed in \p dir and in
     * every listed subdirectory, so that a read-only file system or a pseudo file system
     * (/proc) is reported too. A missing \p dir or subdirectory is created for the probe and
     * removed again; missing parents of \p dir stay created (removing them could race with a
     * parallel run creating its directory there).
     * \param dir the output directory
     * \param subdirs subdirectories the run will write into (e.g. one per scheduler)
     * \param files names of the files the run will write into each subdirectory (into \p dir
     *        if there are none): one that exists as a directory is a problem
     * \return "" if the run can write there, else why not (one sentence naming the path)
     */
    static std::string Problem(const std::string& dir,
                               const std::vector<std::string>& subdirs = {},
                               const std::vector<std::string>& files = {});

    /**
     * \brief Create \p dir (and parents) and the partial folder.
     * \param dir the output directory
     * Throws std::runtime_error naming the path if either cannot be created.
     */
    explicit ResultDirectory(const std::string& dir);

    /// Removes the partial folder if Commit() was not reached.
    ~ResultDirectory();

    ResultDirectory(const ResultDirectory&) = delete;
    ResultDirectory& operator=(const ResultDirectory&) = delete;

    /**
     * \brief Open a new result file (in the partial folder) for writing; floating-point
     * values are written with 9 significant digits.
     * \param name file name (no directories)
     * \return the stream, valid until Commit() or destruction
     * Throws std::runtime_error if the file cannot be created.
     */
    std::ostream& Open(const std::string& name);

    /**
     * \brief Name a result file this run does not write (an optional one, such as a sampled
     * series that is off) or a folder derived from the results (figures): an earlier run's of
     * that name is removed by Commit(), so that the directory never holds one run's files beside
     * another's; it is restored with the others if the commit fails.
     * \param name file or folder name (no directories above it); a name also Open()ed is
     *        ignored here, and so is a symbolic link of that name (the user's)
     */
    void Retire(const std::string& name);

    /**
     * \brief Close every file and check that it was written whole and that no directory
     * stands where it goes; nothing is moved yet. Results of several directories are all or
     * nothing when each is closed before any is committed.
     * Throws std::runtime_error naming the file and the reason (e.g. no space left).
     */
    void Close();

    /**
     * \brief Close() if not done, then move every file into the directory (replacing files of
     * the same name), then remove the partial folder.
     * Throws std::runtime_error naming the file that could not be written or moved.
     */
    void Commit();

    /**
     * \brief Commit() of several directories as one: every file of every directory replaces
     * its earlier version, or, if one cannot (a file that may not be renamed or replaced), every
     * file already moved is put back and every earlier file restored, so that the directories
     * hold either all the new files or all the old ones (a crash half-way excepted).
     * \param dirs the directories (each Close()d here if not done)
     * Throws std::runtime_error naming the file that could not be replaced.
     */
    static void CommitAll(const std::vector<ResultDirectory*>& dirs);

    /// \return the output directory
    const std::filesystem::path& GetPath() const;

  private:
    /// Problem() without the probe. \param dir the directory \param subdirs subdirectories
    /// \return "" or why not
    static std::string StaticProblem(const std::string& dir,
                                     const std::vector<std::string>& subdirs);
    /// \param dir the directory \param subdirs subdirectories \param files file names
    /// \return "" or which result file exists as a directory
    static std::string FileProblem(const std::string& dir,
                                   const std::vector<std::string>& subdirs,
                                   const std::vector<std::string>& files);

    std::filesystem::path m_dir;                         //!< the output directory
    std::filesystem::path m_tmp;                         //!< the partial folder
    std::vector<std::string> m_names;                    //!< files opened, in order
    std::vector<std::string> m_retired;                  //!< files removed at the commit
    std::vector<std::unique_ptr<std::ofstream>> m_files; //!< their streams
    bool m_closed{false};                                //!< Close() done
    bool m_committed{false};                             //!< Commit() done
};

} // namespace ns3

#endif // CRUX_RESULT_DIRECTORY_H
