// SPDX-License-Identifier: MIT
#include "report/json_fields.h"

#include <cmath>
#include <cstdint>

namespace ctxscope::report {

namespace {
const nlohmann::json kEmptyArray = nlohmann::json::array();
const nlohmann::json kEmptyObject = nlohmann::json::object();
} // namespace

FieldReader::FieldReader(const nlohmann::json& object, std::string path)
    : m_object(object)
    , m_path(std::move(path))
{
    if (!m_object.is_object())
        fail((m_path.empty() ? std::string("the document") : m_path) + " is not a JSON object");
}

std::string FieldReader::where(const char* key) const { return m_path.empty() ? key : m_path + "." + key; }

void FieldReader::fail(const std::string& message)
{
    if (m_error.empty())
        m_error = message;
}

const nlohmann::json* FieldReader::find(const char* key, bool required)
{
    if (!m_object.is_object())
        return nullptr;
    auto it = m_object.find(key);
    if (it == m_object.end() || it->is_null()) {
        if (required)
            fail("missing field '" + where(key) + "'");
        return nullptr;
    }
    return &*it;
}

double FieldReader::number(const char* key)
{
    auto v = optNumber(key);
    if (!v && ok())
        fail("missing field '" + where(key) + "'");
    return v.value_or(0);
}

std::optional<double> FieldReader::optNumber(const char* key)
{
    const nlohmann::json* v = find(key, false);
    if (!v)
        return std::nullopt;
    if (!v->is_number()) {
        fail("field '" + where(key) + "' should be a number");
        return std::nullopt;
    }
    const double d = v->get<double>();
    if (!std::isfinite(d)) {
        fail("field '" + where(key) + "' is not a finite number");
        return std::nullopt;
    }
    return d;
}

std::uint64_t FieldReader::count(const char* key)
{
    const nlohmann::json* v = find(key, true);
    if (!v)
        return 0;
    if (!v->is_number_unsigned() && !(v->is_number_integer() && v->get<std::int64_t>() >= 0)) {
        fail("field '" + where(key) + "' should be a non-negative integer");
        return 0;
    }
    return v->get<std::uint64_t>();
}

std::uint64_t FieldReader::countUpTo(const char* key, std::uint64_t max)
{
    const std::uint64_t n = count(key);
    if (n <= max)
        return n;
    fail("field '" + where(key) + "' is " + std::to_string(n) + ", more than the " + std::to_string(max) + " possible");
    return 0;
}

std::optional<std::uint64_t> FieldReader::optCount(const char* key)
{
    const nlohmann::json* v = find(key, false);
    if (!v)
        return std::nullopt;
    if (v->is_number_unsigned())
        return v->get<std::uint64_t>();
    // 2^64 exactly is the first double that does not fit.
    const double d = v->is_number() ? v->get<double>() : -1;
    if (!(d >= 0 && d < 18446744073709551616.0 && std::floor(d) == d)) {
        fail("field '" + where(key) + "' should be a non-negative integer");
        return std::nullopt;
    }
    return static_cast<std::uint64_t>(d);
}

std::optional<bool> FieldReader::optBoolean(const char* key)
{
    const nlohmann::json* v = find(key, false);
    if (!v)
        return std::nullopt;
    if (!v->is_boolean()) {
        fail("field '" + where(key) + "' should be true or false");
        return std::nullopt;
    }
    return v->get<bool>();
}

std::string FieldReader::string(const char* key)
{
    auto v = optString(key);
    if (!v && ok())
        fail("missing field '" + where(key) + "'");
    return v.value_or(std::string());
}

std::optional<std::string> FieldReader::optString(const char* key)
{
    const nlohmann::json* v = find(key, false);
    if (!v)
        return std::nullopt;
    if (!v->is_string()) {
        fail("field '" + where(key) + "' should be a string");
        return std::nullopt;
    }
    return v->get<std::string>();
}

bool FieldReader::boolean(const char* key)
{
    const nlohmann::json* v = find(key, true);
    if (v && !v->is_boolean())
        fail("field '" + where(key) + "' should be true or false");
    return v && v->is_boolean() && v->get<bool>();
}

const nlohmann::json& FieldReader::array(const char* key)
{
    const nlohmann::json* v = optArray(key);
    if (!v && ok())
        fail("missing field '" + where(key) + "'");
    return v ? *v : kEmptyArray;
}

const nlohmann::json* FieldReader::optArray(const char* key)
{
    const nlohmann::json* v = find(key, false);
    if (v && !v->is_array()) {
        fail("field '" + where(key) + "' should be an array");
        return nullptr;
    }
    return v;
}

const nlohmann::json& FieldReader::object(const char* key)
{
    const nlohmann::json* v = optObject(key);
    if (!v && ok())
        fail("missing field '" + where(key) + "'");
    return v ? *v : kEmptyObject;
}

const nlohmann::json* FieldReader::optObject(const char* key)
{
    const nlohmann::json* v = find(key, false);
    if (v && !v->is_object()) {
        fail("field '" + where(key) + "' should be an object");
        return nullptr;
    }
    return v;
}

FieldReader FieldReader::child(const char* key)
{
    const nlohmann::json& o = object(key);
    return FieldReader(o.is_object() ? o : kEmptyObject, where(key));
}

Quartiles quartilesFrom(FieldReader& in, const char* key)
{
    const nlohmann::json& q = in.array(key);
    if (!in.ok())
        return {};
    if (q.size() != 3 || !q[0].is_number() || !q[1].is_number() || !q[2].is_number()) {
        in.fail(in.where(key) + " should be three numbers (p25, p50, p75)");
        return {};
    }
    return Quartiles { q[0].get<double>(), q[1].get<double>(), q[2].get<double>() };
}

namespace {
constexpr std::int64_t kMaxCpuNumber = 65535;
} // namespace

std::vector<int> cpuNumbers(FieldReader& in, const char* key)
{
    std::vector<int> out;
    for (const auto& v : in.array(key)) {
        if (!v.is_number_integer() || v.get<std::int64_t>() < 0 || v.get<std::int64_t>() > kMaxCpuNumber) {
            in.fail("field '" + in.where(key) + "' should hold CPU numbers");
            break;
        }
        out.push_back(v.get<int>());
    }
    return out;
}

std::vector<double> numberList(FieldReader& in, const char* key)
{
    std::vector<double> out;
    const nlohmann::json* a = in.optArray(key);
    if (!a)
        return out;
    out.reserve(a->size());
    for (const auto& v : *a) {
        if (!v.is_number()) {
            in.fail("field '" + in.where(key) + "' should hold numbers");
            break;
        }
        out.push_back(v.get<double>());
    }
    return out;
}

std::vector<std::string> sentences(FieldReader& in, const char* key)
{
    std::vector<std::string> out;
    const nlohmann::json* list = in.optArray(key);
    if (!list)
        return out;
    for (const nlohmann::json& s : *list) {
        if (!s.is_string()) {
            in.fail("field '" + in.where(key) + "' should hold sentences");
            break;
        }
        out.push_back(s.get<std::string>());
    }
    return out;
}

long taskId(FieldReader& in, const char* key) { return static_cast<long>(in.countUpTo(key, 1U << 30)); }

double nonNegative(FieldReader& in, const char* key)
{
    const double v = in.number(key);
    if (v < 0)
        in.fail("field '" + in.where(key) + "' should not be negative");
    return v;
}

} // namespace ctxscope::report
