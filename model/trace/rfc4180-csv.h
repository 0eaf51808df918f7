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

#ifndef CRUX_RFC4180_CSV_H
#define CRUX_RFC4180_CSV_H

// Pure C++ (no ns-3 includes).
//
// Why a reader of our own: ns-3's core ns3::CsvReader (ns3/csv-reader.h, which is why this file
// and class have other names) treats '#' as a comment, strips blanks around fields and allows no
// line break inside a quoted field (its doc, "Differences from RFC 4180"). Debian's only
// header-only C++ CSV library, libfccp-dev
// (fast-cpp-csv-parser, a 2016 snapshot), fixes the column count at compile time, reads line by
// line (no line breaks inside quoted fields) and is not installed on the project's machines.
// The Lingjun files need exactly RFC 4180 quoting (the RES column is quoted JSON with doubled
// quotes), which this small reader implements and test/gtest/lingjun-trace-test.cc checks.

#include <cstdint>
#include <istream>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup crux
 * \brief Minimal RFC 4180 CSV record reader.
 *
 * Fields are separated by ',' and records by LF or CRLF. A field that starts with '"' is quoted:
 * it may contain ',', line breaks and '""' (one literal '"'); it ends at the next lone '"', which
 * must be followed by ',' or the end of the record. A UTF-8 byte-order mark at the start is
 * skipped. Blank lines (no characters at all) are skipped. Unquoted fields are taken verbatim
 * (no trimming). A malformed record (a '"' inside an unquoted field, text after a closing quote,
 * a quote left open at the end of the input) is reported by Next() and skipped up to the end of
 * its physical line, so reading can go on (for a quote left open, the line the record started
 * on: the following lines are read again as records). A record of more than MAX_FIELDS
 * fields is malformed too (its memory would be tens of times its bytes).
 */
class Rfc4180Reader
{
  public:
    /// Fields a record may have (the Lingjun traces have 10-20; an assumption, far above).
    static constexpr std::size_t MAX_FIELDS = 4096;

    /// Outcome of one Next() call.
    enum class Status
    {
        RECORD,    //!< fields holds one record
        MALFORMED, //!< the record at line was malformed (see Error()); it was skipped
        END        //!< no more input
    };

    /**
     * \param in the whole CSV text is read from it at construction
     */
    explicit Rfc4180Reader(std::istream& in);

    /**
     * Read the next record.
     * \param[out] fields the record's fields (unchanged unless RECORD is returned)
     * \return RECORD, MALFORMED or END
     */
    Status Next(std::vector<std::string>& fields);

    /// \return 1-based line number at which the record last returned (or rejected) starts
    uint64_t Line() const;

    /// \return reason of the last MALFORMED outcome ("" otherwise)
    const std::string& Error() const;

    /**
     * \return after a MALFORMED outcome, the fields of the rejected record read before the
     *         error (e.g. its job name, so that a reader can count the row against its job);
     *         empty after RECORD or END
     */
    const std::vector<std::string>& Partial() const;

  private:
    /// Skip to just after the end of the current physical line.
    void SkipLine();

    std::string m_text;                 //!< the whole input
    size_t m_pos{0};                    //!< next unread character
    uint64_t m_line{1};                 //!< line number at m_pos
    uint64_t m_start{0};                //!< line of the last record
    std::string m_error;                //!< last error
    std::vector<std::string> m_partial; //!< fields of the record being read (Partial())
};

/**
 * \ingroup crux
 * \brief Quote a field for CSV output when RFC 4180 requires it.
 * \param field raw field text
 * \return field unchanged if it has no ',', '"', CR or LF; otherwise '"' + field with every '"'
 *         doubled + '"'
 */
std::string CsvQuote(const std::string& field);

/**
 * \ingroup crux
 * \brief Join fields into one CSV record (no line terminator), quoting as CsvQuote() does.
 * \param fields the record's fields
 * \return the record text
 */
std::string CsvJoin(const std::vector<std::string>& fields);

} // namespace ns3

#endif // CRUX_RFC4180_CSV_H
