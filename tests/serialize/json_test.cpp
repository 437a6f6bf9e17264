// The strict JSON reader/writer of the safetensors header (serialize/json.hpp): values, escapes
// (\uXXXX, surrogate pairs), integer ranges, and every refusal (floats, duplicates, trailing
// garbage, depth, invalid UTF-8, lone surrogates, control characters); the writer's serde_json
// escaping.
#include <tensorplay/serialize/json.hpp>

#include <catch2/catch.hpp>

#include <cstdint>
#include <limits>
#include <string>

namespace serialize_json_test {

using namespace tensorplay;
using Catch::Matchers::Contains;
using tensorplay::detail::json::dump;
using tensorplay::detail::json::parse;
using tensorplay::detail::json::Value;

TEST_CASE("json: values, nesting and document order", "[serialize]") {
  const Value v = parse(R"( {"b": [1, -2, true, false, null, "x"], "a": {"k": {}} , "e": []} )");
  REQUIRE(v.is_object());
  const auto& o = v.as_object();
  REQUIRE(o.size() == 3);
  CHECK(o[0].first == "b");  // document order kept
  CHECK(o[1].first == "a");
  const auto& arr = v.find("b")->as_array();
  REQUIRE(arr.size() == 6);
  CHECK(arr[0].as_uint64() == 1);
  CHECK(arr[1].as_int64() == -2);
  CHECK(arr[1].is_negative());
  CHECK(arr[2].as_bool());
  CHECK_FALSE(arr[3].as_bool());
  CHECK(arr[4].is_null());
  CHECK(arr[5].as_string() == "x");
  CHECK(v.find("a")->find("k")->as_object().empty());
  CHECK(v.find("e")->as_array().empty());
  CHECK(v.find("zz") == nullptr);
  CHECK_THROWS_AS(arr[5].as_uint64(), TypeError);
  CHECK_THROWS_WITH(arr[1].as_uint64(), "JSON: expected a non-negative integer, got -2");
  CHECK_THROWS_WITH(v.as_array(), "JSON: expected an array, got an object");
  CHECK(parse("0").as_uint64() == 0);
  CHECK(parse("-0").as_int64() == 0);
  CHECK(parse(" \t\r\n\"s\" \n").as_string() == "s");
}

TEST_CASE("json: integers must fit int64 (negative) or uint64", "[serialize]") {
  CHECK(parse("18446744073709551615").as_uint64() == std::numeric_limits<uint64_t>::max());
  CHECK(parse("-9223372036854775808").as_int64() == std::numeric_limits<int64_t>::min());
  CHECK(parse("9223372036854775807").as_int64() == std::numeric_limits<int64_t>::max());
  CHECK_THROWS_WITH(parse("9223372036854775808").as_int64(),
                    "JSON: integer 9223372036854775808 does not fit in int64");
  CHECK_THROWS_WITH(parse("18446744073709551616"), Contains("integer out of range"));
  CHECK_THROWS_WITH(parse("-9223372036854775809"), Contains("integer out of range"));
  CHECK_THROWS_WITH(parse("1.5"), Contains("only integers are supported"));
  CHECK_THROWS_WITH(parse("1e3"), Contains("only integers are supported"));
  CHECK_THROWS_WITH(parse("[2.0]"), Contains("only integers are supported"));
  CHECK_THROWS_WITH(parse("01"), Contains("leading zeros"));
  CHECK_THROWS_WITH(parse("-"), Contains("expected a digit"));
  CHECK_THROWS_WITH(parse("+1"), Contains("unexpected character"));
}

TEST_CASE("json: string escapes, \\u and surrogate pairs", "[serialize]") {
  CHECK(parse(R"("a\"b\\c\/d\b\f\n\r\t")").as_string() == "a\"b\\c/d\b\f\n\r\t");
  CHECK(parse(R"("\u0041\u00e9\u20AC")").as_string() == "A\xC3\xA9\xE2\x82\xAC");
  CHECK(parse(R"("\ud83d\ude00")").as_string() == "\xF0\x9F\x98\x80");  // U+1F600
  CHECK(parse(R"("\u0000")").as_string() == std::string(1, '\0'));
  CHECK(parse("\"caf\xC3\xA9 \xF0\x9F\x98\x80\"").as_string() == "caf\xC3\xA9 \xF0\x9F\x98\x80");
  CHECK_THROWS_WITH(parse(R"("\ud83d")"), Contains("high surrogate not followed"));
  CHECK_THROWS_WITH(parse(R"("\ud83dx")"), Contains("high surrogate not followed"));
  CHECK_THROWS_WITH(parse(R"("\ud83d\u0041")"), Contains("high surrogate not followed"));
  CHECK_THROWS_WITH(parse(R"("\ude00")"), Contains("lone low surrogate"));
  CHECK_THROWS_WITH(parse(R"("\u12")"), Contains("truncated \\u escape"));
  CHECK_THROWS_WITH(parse(R"("\u12g4")"), Contains("invalid hex digit"));
  CHECK_THROWS_WITH(parse(R"("\x")"), Contains("invalid escape"));
  CHECK_THROWS_WITH(parse("\"a\nb\""), Contains("control character"));
  CHECK_THROWS_WITH(parse("\"abc"), Contains("unterminated string"));
  CHECK_THROWS_WITH(parse("\"abc\\"), Contains("unterminated escape"));
}

TEST_CASE("json: invalid UTF-8 is refused", "[serialize]") {
  for (const char* bad : {"\"\xFF\"", "\"\xC0\x80\"", "\"\xE0\x80\x80\"", "\"\xED\xA0\x80\"",
                          "\"\xF4\x90\x80\x80\"", "\"\xC3\"", "\"\x80\"", "\"\xE2\x82\""}) {
    INFO(bad);
    CHECK_THROWS_AS(parse(bad), ValueError);
  }
  CHECK_THROWS_WITH(parse("\"\xC0\x80\""), Contains("invalid UTF-8"));
}

TEST_CASE("json: duplicates, trailing garbage, structure errors and depth", "[serialize]") {
  CHECK_THROWS_WITH(parse(R"({"a":1,"a":2})"), "invalid JSON at byte 7: duplicate key \"a\"");
  CHECK_THROWS_WITH(parse(R"({"a":1} x)"), Contains("trailing characters"));
  CHECK_THROWS_WITH(parse("[1] [2]"), Contains("trailing characters"));
  CHECK_THROWS_WITH(parse(""), Contains("unexpected end of input"));
  CHECK_THROWS_WITH(parse("{"), Contains("expected a string key"));
  CHECK_THROWS_WITH(parse(R"({"a" 1})"), Contains("expected ':'"));
  CHECK_THROWS_WITH(parse(R"({"a":1,})"), Contains("expected a string key"));
  CHECK_THROWS_WITH(parse(R"({"a":1)"), Contains("unexpected end of input in an object"));
  CHECK_THROWS_WITH(parse(R"({"a":1 "b":2})"), Contains("expected ',' or '}'"));
  CHECK_THROWS_WITH(parse("[1,]"), Contains("unexpected character"));
  CHECK_THROWS_WITH(parse("[1 2]"), Contains("expected ',' or ']'"));
  CHECK_THROWS_WITH(parse("[1"), Contains("unexpected end of input in an array"));
  CHECK_THROWS_WITH(parse("tru"), Contains("unexpected character"));
  CHECK_THROWS_WITH(parse("{1:2}"), Contains("expected a string key"));
  const int limit = tensorplay::detail::json::kMaxDepth;
  CHECK(parse(std::string(std::size_t(limit), '[') + std::string(std::size_t(limit), ']'))
            .is_array());
  CHECK_THROWS_WITH(
      parse(std::string(std::size_t(limit + 1), '[') + std::string(std::size_t(limit + 1), ']')),
      Contains("nesting too deep"));
  // Far deeper than the limit: refused without exhausting the stack.
  CHECK_THROWS_WITH(parse(std::string(100000, '[')), Contains("nesting too deep"));
  CHECK_THROWS_WITH(parse(std::string(100000, '{')), Contains("expected a string key"));
}

TEST_CASE("json: the writer escapes as serde_json and round-trips", "[serialize]") {
  CHECK(dump(Value::string("a\"b\\c/\b\f\n\r\t\x01\x1f\x7f")) ==
        R"("a\"b\\c/\b\f\n\r\t\u0001\u001f)"
        "\x7f\"");
  CHECK(dump(Value::string("caf\xC3\xA9")) == "\"caf\xC3\xA9\"");  // non-ASCII as is
  Value::Object o;
  o.emplace_back("z", Value::array({Value::unsigned_integer(18446744073709551615ull),
                                    Value::integer(std::numeric_limits<int64_t>::min()),
                                    Value::boolean(true), Value::null()}));
  o.emplace_back("a", Value::object());
  const std::string text = dump(Value::object(o));
  CHECK(text == R"({"z":[18446744073709551615,-9223372036854775808,true,null],"a":{}})");
  CHECK(dump(parse(text)) == text);
  const std::string tricky = R"({"k\"\\\n\u0001\ud83d\ude00":"v"})";
  CHECK(dump(parse(tricky)) == "{\"k\\\"\\\\\\n\\u0001\xF0\x9F\x98\x80\":\"v\"}");
}

}  // namespace serialize_json_test
