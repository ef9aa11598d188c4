// cudnnlint's stand-in for Catch2's and GoogleTest's headers, used only where they are not on the
// include path. Without them `TEST_CASE("...") { ... }` is no function at all to clang, and the
// test bodies (where cudnn-frontend's samples live) would not be analysed. Each test becomes a
// function whose body is the test's; assertions evaluate their operands and stream messages.
#pragma once

namespace cudnnlint_test_macros {
struct Stream {
  template <typename T>
  Stream& operator<<(const T&) { return *this; }
};
struct Test {
  virtual ~Test() = default;
  virtual void SetUp() {}
  virtual void TearDown() {}
};
template <typename T>
struct TestWithParam : Test {
  const T& GetParam() const;
};
}  // namespace cudnnlint_test_macros

#define CUDNNLINT_TEST_CAT2(a, b) a##b
#define CUDNNLINT_TEST_CAT(a, b) CUDNNLINT_TEST_CAT2(a, b)
#define CUDNNLINT_TEST_FUNCTION static void CUDNNLINT_TEST_CAT(cudnnlint_test_, __COUNTER__)()
#define CUDNNLINT_TEST_CHECK(...) ((void)(__VA_ARGS__), ::cudnnlint_test_macros::Stream())

// Catch2 (v2 catch.hpp and v3 catch2/catch_*.hpp)
#define TEST_CASE(...) CUDNNLINT_TEST_FUNCTION
#define TEST_CASE_METHOD(fixture, ...) CUDNNLINT_TEST_FUNCTION
#define TEMPLATE_TEST_CASE(...) CUDNNLINT_TEST_FUNCTION
#define SCENARIO(...) CUDNNLINT_TEST_FUNCTION
#define SECTION(...) if (true)
#define GIVEN(...) if (true)
#define WHEN(...) if (true)
#define THEN(...) if (true)
#define AND_GIVEN(...) if (true)
#define AND_WHEN(...) if (true)
#define AND_THEN(...) if (true)
#define REQUIRE(...) (void)(__VA_ARGS__)
#define REQUIRE_FALSE(...) (void)(__VA_ARGS__)
#define CHECK(...) (void)(__VA_ARGS__)
#define CHECK_FALSE(...) (void)(__VA_ARGS__)
#define REQUIRE_NOTHROW(...) (void)(__VA_ARGS__)
#define CHECK_NOTHROW(...) (void)(__VA_ARGS__)
#define REQUIRE_THROWS(...) (void)(__VA_ARGS__)
#define CHECK_THROWS(...) (void)(__VA_ARGS__)
#define REQUIRE_THAT(value, ...) (void)(value)
#define CHECK_THAT(value, ...) (void)(value)
#define INFO(...) (void)0
#define CAPTURE(...) (void)0
#define WARN(...) (void)0
#define FAIL(...) (void)0
#define SUCCEED(...) (void)0
#define SKIP(...) return

// GoogleTest (gtest/gtest.h)
namespace testing {
using Test = ::cudnnlint_test_macros::Test;
template <typename T>
using TestWithParam = ::cudnnlint_test_macros::TestWithParam<T>;
}  // namespace testing
#define TEST(suite, name) CUDNNLINT_TEST_FUNCTION
#define TEST_F(fixture, name) CUDNNLINT_TEST_FUNCTION
#define TEST_P(fixture, name) CUDNNLINT_TEST_FUNCTION
#define INSTANTIATE_TEST_SUITE_P(...) static_assert(true, "")
#define EXPECT_TRUE(...) CUDNNLINT_TEST_CHECK(__VA_ARGS__)
#define EXPECT_FALSE(...) CUDNNLINT_TEST_CHECK(__VA_ARGS__)
#define ASSERT_TRUE(...) CUDNNLINT_TEST_CHECK(__VA_ARGS__)
#define ASSERT_FALSE(...) CUDNNLINT_TEST_CHECK(__VA_ARGS__)
#define EXPECT_EQ(a, b) CUDNNLINT_TEST_CHECK(a, b)
#define EXPECT_NE(a, b) CUDNNLINT_TEST_CHECK(a, b)
#define EXPECT_LT(a, b) CUDNNLINT_TEST_CHECK(a, b)
#define EXPECT_LE(a, b) CUDNNLINT_TEST_CHECK(a, b)
#define EXPECT_GT(a, b) CUDNNLINT_TEST_CHECK(a, b)
#define EXPECT_GE(a, b) CUDNNLINT_TEST_CHECK(a, b)
#define EXPECT_NEAR(a, b, tolerance) CUDNNLINT_TEST_CHECK(a, b, tolerance)
#define EXPECT_FLOAT_EQ(a, b) CUDNNLINT_TEST_CHECK(a, b)
#define EXPECT_DOUBLE_EQ(a, b) CUDNNLINT_TEST_CHECK(a, b)
#define ASSERT_EQ(a, b) CUDNNLINT_TEST_CHECK(a, b)
#define ASSERT_NE(a, b) CUDNNLINT_TEST_CHECK(a, b)
#define ASSERT_LT(a, b) CUDNNLINT_TEST_CHECK(a, b)
#define ASSERT_LE(a, b) CUDNNLINT_TEST_CHECK(a, b)
#define ASSERT_GT(a, b) CUDNNLINT_TEST_CHECK(a, b)
#define ASSERT_GE(a, b) CUDNNLINT_TEST_CHECK(a, b)
#define ASSERT_NEAR(a, b, tolerance) CUDNNLINT_TEST_CHECK(a, b, tolerance)
#define EXPECT_THROW(statement, exception) CUDNNLINT_TEST_CHECK([&] { statement; })
#define ASSERT_THROW(statement, exception) CUDNNLINT_TEST_CHECK([&] { statement; })
#define EXPECT_NO_THROW(statement) CUDNNLINT_TEST_CHECK([&] { statement; })
#define ASSERT_NO_THROW(statement) CUDNNLINT_TEST_CHECK([&] { statement; })
#define GTEST_SKIP() \
  if (true) return;  \
  else ::cudnnlint_test_macros::Stream()
