// SPDX-License-Identifier: MIT
#pragma once

#include "ctxscope/expected.h"
#include "ctxscope/stats.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace ctxscope::report {

// Reads fields out of one JSON object and remembers the first problem, so a reader can
// take every field it needs and check once. Messages name the field by its path.
class FieldReader {
public:
    FieldReader(const nlohmann::json& object, std::string path);

    bool ok() const { return m_error.empty(); }
    const std::string& error() const { return m_error; }
    const nlohmann::json& object() const { return m_object; }

    // A required field of the given JSON kind; on absence or wrong kind, records the error.
    double number(const char* key);
    std::uint64_t count(const char* key); // a non-negative integer
    std::string string(const char* key);
    bool boolean(const char* key);
    const nlohmann::json& array(const char* key);
    const nlohmann::json& object(const char* key);
    // A count that must also be at most `max` (it becomes an int, or sizes something).
    std::uint64_t countUpTo(const char* key, std::uint64_t max);
    // Optional fields: absent or null give nullopt; present with the wrong kind is an error.
    std::optional<double> optNumber(const char* key);
    // A non-negative whole number; an integral double below 2^64 is taken too.
    std::optional<std::uint64_t> optCount(const char* key);
    std::optional<bool> optBoolean(const char* key);
    std::optional<std::string> optString(const char* key);
    const nlohmann::json* optArray(const char* key);
    const nlohmann::json* optObject(const char* key);

    // A sub-reader for an object field (required).
    FieldReader child(const char* key);
    void fail(const std::string& message);
    // Takes over a child reader's first problem.
    void absorb(const FieldReader& other)
    {
        if (!other.ok())
            fail(other.error());
    }
    std::string where(const char* key) const;

private:
    const nlohmann::json* find(const char* key, bool required);
    const nlohmann::json& m_object;
    std::string m_path;
    std::string m_error;
};

// A [p25, p50, p75] array field; records an error when it is not three numbers.
Quartiles quartilesFrom(FieldReader& in, const char* key);
// An array of CPU numbers (0 to 65535); records an error for anything else.
std::vector<int> cpuNumbers(FieldReader& in, const char* key);
// An optional array of numbers (empty when absent); records an error for anything else.
std::vector<double> numberList(FieldReader& in, const char* key);
// An optional array of strings (empty when absent); records an error for anything else.
std::vector<std::string> sentences(FieldReader& in, const char* key);
// A process or thread id (0 to 2^30); records an error for anything else.
long taskId(FieldReader& in, const char* key);
// A required number that must not be negative (a rate, a time); records an error for one that is.
double nonNegative(FieldReader& in, const char* key);

// Calls f(reader) for each element of an array field, each read as an object; stops at the
// first problem.
template <typename F> void eachObject(FieldReader& in, const char* key, F&& f)
{
    for (const nlohmann::json& item : in.array(key)) {
        FieldReader element(item, in.where(key));
        f(element);
        in.absorb(element);
        if (!in.ok())
            return;
    }
}

} // namespace ctxscope::report
