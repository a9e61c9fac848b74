#include "bench/options/sizes.h"

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/matchers.h"

namespace kcoll {
namespace bench {
namespace {

TEST(SizesTest, ParsesNcclTestsSuffixes) {
  EXPECT_EQ(*ParseByteSize("8"), 8u);
  EXPECT_EQ(*ParseByteSize("1K"), 1024u);
  EXPECT_EQ(*ParseByteSize("1k"), 1024u);
  EXPECT_EQ(*ParseByteSize("128M"), 134217728u);
  EXPECT_EQ(*ParseByteSize("2G"), size_t{2} << 30);
  EXPECT_EQ(*ParseByteSize("1.5K"), 1536u);
  EXPECT_EQ(*ParseByteSize("64KiB"), 65536u);
  EXPECT_EQ(*ParseByteSize("64KB"), 65536u);
  EXPECT_EQ(*ParseByteSize("0"), 0u);
}

TEST(SizesTest, RejectsWhatIsNotASize) {
  for (const char* bad : {"", "K", "12Q", "-1", "1.5", "abc", "1e400"}) {
    auto r = ParseByteSize(bad);
    EXPECT_FALSE(r.ok()) << bad;
    EXPECT_THAT(std::string(r.status().message()), HasSubstr(absl::StrCat("'", bad, "'"))) << bad;
  }
}

TEST(SizesTest, FormatsExactly) {
  EXPECT_EQ(FormatByteSize(8), "8");
  EXPECT_EQ(FormatByteSize(1024), "1K");
  EXPECT_EQ(FormatByteSize(1536), "1.5K");
  EXPECT_EQ(FormatByteSize(size_t{128} << 20), "128M");
  EXPECT_EQ(FormatByteSize(1000), "1000");
}

TEST(SizesTest, DefaultSweepIsEightBytesTo128MiBByTwo) {
  auto sizes = MakeSizeList(8, size_t{128} << 20, 2, 0);
  ASSERT_TRUE(sizes.ok());
  ASSERT_EQ(sizes->size(), 25u);  // 2^3 .. 2^27
  for (size_t i = 0; i < sizes->size(); ++i) EXPECT_EQ((*sizes)[i], size_t{8} << i);
}

TEST(SizesTest, FactorStopsAtOrBelowMax) {
  EXPECT_THAT(*MakeSizeList(8, 100, 4, 0), ElementsAre(8, 32));
  EXPECT_THAT(*MakeSizeList(1, 1, 2, 0), ElementsAre(1));
  EXPECT_THAT(*MakeSizeList(0, 0, 2, 0), ElementsAre(0));
}

TEST(SizesTest, StepBytes) {
  EXPECT_THAT(*MakeSizeList(0, 10, 1, 4), ElementsAre(0, 4, 8));
  EXPECT_THAT(*MakeSizeList(1024, 4096, 1, 1024), ElementsAre(1024, 2048, 3072, 4096));
}

TEST(SizesTest, Errors) {
  EXPECT_THAT(std::string(MakeSizeList(16, 8, 2, 0).status().message()), HasSubstr("larger than maximum"));
  EXPECT_THAT(std::string(MakeSizeList(8, 16, 1, 0).status().message()), HasSubstr("cannot advance"));
  EXPECT_THAT(std::string(MakeSizeList(0, 16, 2, 0).status().message()), HasSubstr("-b 0 with -f"));
  EXPECT_THAT(std::string(MakeSizeList(0, 1000, 1, 1, 10).status().message()), HasSubstr("more than 10 sizes"));
}

}  // namespace
}  // namespace bench
}  // namespace kcoll
