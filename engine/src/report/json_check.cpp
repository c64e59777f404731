// SPDX-License-Identifier: MIT
#include "report/json_check.h"

#include <nlohmann/json.hpp>

#include <string>

namespace ctxscope::report {

namespace {

using nlohmann::json;

// Accepts every value and counts nesting; returning false stops the parse at once.
class DepthCounter {
public:
    explicit DepthCounter(int maxDepth)
        : m_maxDepth(maxDepth)
    {
    }
    bool null() { return true; }
    bool boolean(bool) { return true; }
    bool number_integer(json::number_integer_t) { return true; }
    bool number_unsigned(json::number_unsigned_t) { return true; }
    bool number_float(json::number_float_t, const std::string&) { return true; }
    bool string(std::string&) { return true; }
    bool binary(json::binary_t&) { return true; }
    bool key(std::string&) { return true; }
    bool start_object(std::size_t) { return enter(); }
    bool start_array(std::size_t) { return enter(); }
    bool end_object() { return leave(); }
    bool end_array() { return leave(); }
    bool parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception&)
    {
        m_problem = JsonProblem::Syntax;
        m_where = position;
        return false;
    }

    JsonProblem problem() const { return m_problem; }
    std::size_t where() const { return m_where; }

private:
    bool enter()
    {
        if (++m_depth <= m_maxDepth)
            return true;
        m_problem = JsonProblem::TooDeep;
        return false;
    }
    bool leave()
    {
        --m_depth;
        return true;
    }

    int m_maxDepth;
    int m_depth = 0;
    JsonProblem m_problem = JsonProblem::None;
    std::size_t m_where = 0;
};

} // namespace

JsonProblem checkJsonText(std::string_view text, int maxDepth, std::size_t* where)
{
    DepthCounter counter(maxDepth);
    const bool ok = json::sax_parse(text, &counter);
    if (where)
        *where = counter.where();
    if (ok)
        return JsonProblem::None;
    // sax_parse reports no problem of its own only when we stopped it.
    return counter.problem() == JsonProblem::None ? JsonProblem::Syntax : counter.problem();
}

} // namespace ctxscope::report
