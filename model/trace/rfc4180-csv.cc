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

#include "rfc4180-csv.h"

#include <iterator>

namespace ns3
{

Rfc4180Reader::Rfc4180Reader(std::istream& in)
    : m_text(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>())
{
    if (m_text.compare(0, 3, "\xEF\xBB\xBF") == 0)
    {
        m_pos = 3;
    }
}

uint64_t
Rfc4180Reader::Line() const
{
    return m_start;
}

const std::string&
Rfc4180Reader::Error() const
{
    return m_error;
}

void
Rfc4180Reader::SkipLine()
{
    while (m_pos < m_text.size() && m_text[m_pos] != '\n')
    {
        ++m_pos;
    }
    if (m_pos < m_text.size())
    {
        ++m_pos;
        ++m_line;
    }
}

const std::vector<std::string>&
Rfc4180Reader::Partial() const
{
    return m_partial;
}

Rfc4180Reader::Status
Rfc4180Reader::Next(std::vector<std::string>& fields)
{
    m_error.clear();
    m_partial.clear();
    // Skip blank lines.
    while (m_pos < m_text.size() && (m_text[m_pos] == '\n' || m_text[m_pos] == '\r'))
    {
        if (m_text[m_pos] == '\n')
        {
            ++m_line;
        }
        ++m_pos;
    }
    if (m_pos >= m_text.size())
    {
        return Status::END;
    }
    m_start = m_line;
    const size_t recordStart = m_pos;
    std::vector<std::string>& out = m_partial; // what Partial() gives after MALFORMED
    std::string field;
    const size_t n = m_text.size();
    while (true)
    {
        field.clear();
        if (m_pos < n && m_text[m_pos] == '"')
        {
            // Quoted field.
            ++m_pos;
            bool closed = false;
            while (m_pos < n)
            {
                char c = m_text[m_pos];
                if (c == '"')
                {
                    if (m_pos + 1 < n && m_text[m_pos + 1] == '"')
                    {
                        field += '"';
                        m_pos += 2;
                        continue;
                    }
                    ++m_pos;
                    closed = true;
                    break;
                }
                if (c == '\n')
                {
                    ++m_line;
                }
                field += c;
                ++m_pos;
            }
            if (!closed)
            {
                // Lose only this record's physical line, not the rest of the file: resume at
                // the line after the one the record started on.
                m_error = "quoted field is not closed before the end of the file";
                m_pos = recordStart;
                m_line = m_start;
                SkipLine();
                return Status::MALFORMED;
            }
            if (m_pos < n && m_text[m_pos] == '\r' && (m_pos + 1 == n || m_text[m_pos + 1] == '\n'))
            {
                ++m_pos;
            }
            if (m_pos < n && m_text[m_pos] != ',' && m_text[m_pos] != '\n')
            {
                m_error = "unexpected text after the closing quote of field " +
                          std::to_string(out.size() + 1);
                SkipLine();
                return Status::MALFORMED;
            }
        }
        else
        {
            while (m_pos < n && m_text[m_pos] != ',' && m_text[m_pos] != '\n')
            {
                if (m_text[m_pos] == '"')
                {
                    m_error = "'\"' inside unquoted field " + std::to_string(out.size() + 1);
                    SkipLine();
                    return Status::MALFORMED;
                }
                field += m_text[m_pos];
                ++m_pos;
            }
            if (!field.empty() && field.back() == '\r' && (m_pos >= n || m_text[m_pos] == '\n'))
            {
                field.pop_back();
            }
        }
        out.push_back(field);
        if (out.size() > MAX_FIELDS)
        {
            // an empty field costs a std::string (32 bytes) per byte of input: a line of
            // commas would hold tens of times the file's size
            m_error = "more than " + std::to_string(MAX_FIELDS) + " fields";
            SkipLine();
            return Status::MALFORMED;
        }
        if (m_pos >= n)
        {
            break;
        }
        if (m_text[m_pos] == ',')
        {
            ++m_pos;
            continue;
        }
        // '\n': end of the record.
        ++m_pos;
        ++m_line;
        break;
    }
    fields.swap(out);
    m_partial.clear();
    return Status::RECORD;
}

std::string
CsvQuote(const std::string& field)
{
    if (field.find_first_of(",\"\r\n") == std::string::npos)
    {
        return field;
    }
    std::string out = "\"";
    for (char c : field)
    {
        if (c == '"')
        {
            out += '"';
        }
        out += c;
    }
    out += '"';
    return out;
}

std::string
CsvJoin(const std::vector<std::string>& fields)
{
    std::string out;
    for (size_t i = 0; i < fields.size(); ++i)
    {
        if (i > 0)
        {
            out += ',';
        }
        out += CsvQuote(fields[i]);
    }
    return out;
}

} // namespace ns3
