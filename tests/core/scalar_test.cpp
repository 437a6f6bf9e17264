// Scalar: construction from every type, checked conversions with c10's messages, type(),
// negation and printing.
#include <tensorplay/core/scalar.hpp>

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <sstream>
#include <string>

namespace core_scalar_test {

using namespace tensorplay;

namespace {
std::string str(const Scalar& s) {
  std::ostringstream os;
  os << s;
  return os.str();
}
std::string overflow(const char* type) {
  return std::string("value cannot be converted to type ") + type + " without overflow";
}
}  // namespace

TEST_CASE("Scalar is built from every arithmetic type", "[core][scalar]") {
  CHECK(Scalar().type() == kLong);
  CHECK(Scalar().toLong() == 0);
  CHECK(Scalar(true).isBoolean());
  CHECK(Scalar(true).type() == kBool);
  CHECK(Scalar(uint8_t{200}).toLong() == 200);
  CHECK(Scalar(int8_t{-5}).toLong() == -5);
  CHECK(Scalar(int16_t{-300}).toLong() == -300);
  CHECK(Scalar(int32_t{1} << 30).toLong() == 1 << 30);
  CHECK(Scalar(int64_t{1} << 40).toLong() == int64_t{1} << 40);
  CHECK(Scalar(7u).type() == kLong);
  CHECK(Scalar(2.5f).toDouble() == 2.5);
  CHECK(Scalar(2.5).type() == kDouble);
  CHECK(Scalar(Half(1.5f)).toDouble() == 1.5);
  CHECK(Scalar(Half(1.5f)).type() == kDouble);
  CHECK(Scalar(BFloat16(-2.0f)).toDouble() == -2.0);
  for (const Scalar& s : {Scalar(1), Scalar(int8_t{1}), Scalar(uint8_t{1})}) {
    CHECK(s.isIntegral(false));
    CHECK(s.isIntegral(true));
    CHECK_FALSE(s.isFloatingPoint());
    CHECK_FALSE(s.isBoolean());
  }
  CHECK(Scalar(false).isIntegral(true));
  CHECK_FALSE(Scalar(false).isIntegral(false));
  CHECK(Scalar(0.5).isFloatingPoint());
}

TEST_CASE("Scalar::to converts in range", "[core][scalar]") {
  CHECK(Scalar(3.75).to<int>() == 3);  // truncation toward zero
  CHECK(Scalar(-3.75).to<int64_t>() == -3);
  CHECK(Scalar(300).to<int16_t>() == 300);
  CHECK(Scalar(-1).to<uint8_t>() == 255);  // c10 lets negative integers wrap into unsigned
  CHECK(Scalar(-255).to<uint8_t>() == 1);
  CHECK(Scalar(255.0).to<uint8_t>() == 255);
  CHECK(Scalar(2).to<bool>());
  CHECK_FALSE(Scalar(0.0).to<bool>());
  CHECK(Scalar(std::nan("")).to<bool>());  // NaN != 0; bool is never an overflow in c10
  CHECK(Scalar(true).to<double>() == 1.0);
  CHECK(Scalar(true).to<int8_t>() == 1);
  CHECK(Scalar(1).toFloat() == 1.0f);
  CHECK(Scalar(65504.0).toHalf() == Half(65504.0f));
  CHECK(std::isinf(float(Scalar(std::numeric_limits<double>::infinity()).toHalf())));
  CHECK(std::isnan(float(Scalar(std::nan("")).toBFloat16())));
  CHECK(std::isinf(Scalar(-std::numeric_limits<double>::infinity()).toFloat()));
  CHECK(Scalar(int64_t{9223372036854775807}).toLong() == 9223372036854775807);
  CHECK(Scalar(-2147483648.0).toInt() == std::numeric_limits<int32_t>::min());
  CHECK(Scalar(2147483647.0).toInt() == 2147483647);
  CHECK(Scalar(1e300).toDouble() == 1e300);
  CHECK(Scalar(int64_t{1} << 62).to<float>() == 4611686018427387904.f);
}

TEST_CASE("Scalar::to rejects overflow with c10's message", "[core][scalar]") {
  CHECK_THROWS_WITH(Scalar(256).to<uint8_t>(), overflow("uint8_t"));
  CHECK_THROWS_WITH(Scalar(-256).to<uint8_t>(), overflow("uint8_t"));
  CHECK_THROWS_WITH(Scalar(-0.5).to<uint8_t>(), overflow("uint8_t"));
  CHECK_THROWS_WITH(Scalar(255.5).to<uint8_t>(), overflow("uint8_t"));
  CHECK_THROWS_WITH(Scalar(128).to<int8_t>(), overflow("int8_t"));
  CHECK_THROWS_WITH(Scalar(-129).to<int8_t>(), overflow("int8_t"));
  CHECK_THROWS_WITH(Scalar(40000).to<int16_t>(), overflow("int16_t"));
  CHECK_THROWS_WITH(Scalar(int64_t{1} << 31).toInt(), overflow("int"));
  CHECK_THROWS_WITH(Scalar(2147483647.5).toInt(), overflow("int"));
  CHECK_THROWS_WITH(Scalar(std::nan("")).toInt(), overflow("int"));
  CHECK_THROWS_WITH(Scalar(std::numeric_limits<double>::infinity()).toLong(), overflow("int64_t"));
  // 2^63 is the double nearest int64's max; c10 lets it through to an undefined cast.
  CHECK_THROWS_WITH(Scalar(9223372036854775808.0).toLong(), overflow("int64_t"));
  CHECK_THROWS_WITH(Scalar(1e39).toFloat(), overflow("float"));
  CHECK_THROWS_WITH(Scalar(65505.0).toHalf(), overflow("tensorplay::Half"));
  CHECK_THROWS_WITH(Scalar(70000).toHalf(), overflow("tensorplay::Half"));
  CHECK_THROWS_WITH(Scalar(1e39).toBFloat16(), overflow("tensorplay::BFloat16"));
  CHECK_THROWS_AS(Scalar(256).to<uint8_t>(), Error);
}

TEST_CASE("Scalar negation and equality", "[core][scalar]") {
  CHECK((-Scalar(3)).toLong() == -3);
  CHECK((-Scalar(3)).type() == kLong);
  CHECK((-Scalar(2.5)).toDouble() == -2.5);
  CHECK_THROWS_WITH(-Scalar(true), "torch boolean negative, the `-` operator, is not supported.");
  CHECK(Scalar(2).equal(Scalar(2.0)));
  CHECK(Scalar(true).equal(Scalar(1)));
  CHECK_FALSE(Scalar(2).equal(Scalar(3)));
  CHECK_FALSE(Scalar(std::nan("")).equal(Scalar(std::nan(""))));
}

TEST_CASE("Scalar prints as c10 prints it", "[core][scalar]") {
  CHECK(str(Scalar(true)) == "true");
  CHECK(str(Scalar(false)) == "false");
  CHECK(str(Scalar(-42)) == "-42");
  CHECK(str(Scalar(2.5)) == "2.5");
  CHECK(str(Scalar(1.0 / 3)) == "0.333333");
  CHECK(str(Scalar(uint8_t{7})) == "7");
}

}  // namespace core_scalar_test
