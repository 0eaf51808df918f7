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

#ifndef CRUX_INPUT_FILE_H
#define CRUX_INPUT_FILE_H

// Pure C++ (no ns-3 includes), header only: used by the scenario reader, the Chakra reader and
// the Lingjun trace reader, which live in different libraries.

#include <cstdint>
#include <filesystem>
#include <string>
#include <system_error>

namespace ns3
{

/**
 * \ingroup crux
 * \brief Why an input file (scenario, trace, Chakra rank file) cannot be read whole, checked
 * before it is opened: a FIFO would block the read, /dev/zero never ends it and a huge file
 * fills the memory.
 * \param path the file (a symbolic link is followed)
 * \param maxBytes the largest size accepted, bytes
 * \param what what the file should be, for the reason (e.g. "a scenario file")
 * \return "" if it is a regular file of at most maxBytes (or does not exist: the caller's open
 *         reports that); otherwise the reason, to follow "<path>: ": "is a directory, not
 *         <what>", "is not a regular file (a FIFO, device or socket, or a link to one), not
 *         <what>" or "<n> MiB, larger than the <m> MiB <what> may have"
 */
inline std::string
InputFileProblem(const std::string& path, uintmax_t maxBytes, const std::string& what)
{
    std::error_code ec;
    const auto status = std::filesystem::status(path, ec); // follows links
    if (!std::filesystem::exists(status))
    {
        return "";
    }
    if (std::filesystem::is_directory(status))
    {
        return "is a directory, not " + what;
    }
    if (!std::filesystem::is_regular_file(status))
    {
        return "is not a regular file (a FIFO, device or socket, or a link to one), not " + what;
    }
    const auto bytes = std::filesystem::file_size(path, ec);
    if (!ec && bytes > maxBytes)
    {
        constexpr uintmax_t MIB = uintmax_t{1} << 20;
        return std::to_string((bytes + MIB - 1) / MIB) + " MiB, larger than the " +
               std::to_string(maxBytes / MIB) + " MiB " + what + " may have";
    }
    return "";
}

} // namespace ns3

#endif // CRUX_INPUT_FILE_H
