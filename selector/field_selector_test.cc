#include "selector/field_selector.h"

#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "selector/random_inputs.h"

namespace informerd::selector {
namespace {

using Operator = FieldRequirement::Operator;
using ::testing::ElementsAre;
using ::testing::Pair;
using ::testing::StartsWith;

struct ValidCase {
  std::string text;
  std::string canonical;
};

TEST(FieldSelectorParseTest, ValidSelectorsAndTheirCanonicalForm) {
  const std::vector<ValidCase> cases = {
      {"", ""},
      {",", ""},
      {",,", ""},
      {"a=b", "a=b"},
      {"a==b", "a=b"},
      {"a!=b", "a!=b"},
      {"a=", "a="},
      {"a!=", "a!="},
      {"a=b,", "a=b"},
      {",a=b,,", "a=b"},
      {"b=1,a=2", "a=2,b=1"},
      {"a=2,a!=1,a=1", "a=1,a=2,a!=1"},
      {"a=x\\,y", "a=x\\,y"},
      {"a=x\\=y", "a=x\\=y"},
      {"a=x\\\\y", "a=x\\\\y"},
      {"a==\\=", "a=\\="},
      {" a = b ", " a = b "},
      {"a!b=c", "a!b=c"},
      {"a\\,b=c", "a\\,b=c"},
      {"metadata.name=web,spec.nodeName!=",
       "metadata.name=web,spec.nodeName!="},
      {"a=é", "a=é"},
  };
  for (const ValidCase& c : cases) {
    absl::StatusOr<FieldSelector> selector = FieldSelector::Parse(c.text);
    ASSERT_TRUE(selector.ok()) << c.text << ": " << selector.status();
    EXPECT_EQ(selector->String(), c.canonical) << c.text;
    EXPECT_EQ(selector->Empty(), c.canonical.empty()) << c.text;
  }
}

TEST(FieldSelectorParseTest, RequirementsHoldUnescapedValues) {
  absl::StatusOr<FieldSelector> selector =
      FieldSelector::Parse("z!=a\\,b,a.b==x\\=y\\\\,m=");
  ASSERT_TRUE(selector.ok()) << selector.status();
  EXPECT_THAT(selector->requirements(),
              ElementsAre(FieldRequirement{"a.b", Operator::kEquals, "x=y\\"},
                          FieldRequirement{"m", Operator::kEquals, ""},
                          FieldRequirement{"z", Operator::kNotEquals, "a,b"}));
}

struct InvalidCase {
  std::string text;
  std::string message;
};

TEST(FieldSelectorParseTest, InvalidSelectorsNameFieldAndPosition) {
  const std::vector<InvalidCase> cases = {
      {"a",
       "field_selector: term \"a\" has no operator (=, == or !=) at position "
       "0"},
      {"a=b,c",
       "field_selector: term \"c\" has no operator (=, == or !=) at position "
       "4"},
      {"a=b,!c",
       "field_selector: term \"!c\" has no operator (=, == or !=) at position "
       "4"},
      {"=b", "field_selector: missing field name at position 0"},
      {"a=b,!=c", "field_selector: missing field name at position 4"},
      {"a=b=c",
       "field_selector: unescaped '=' in value (write '\\=') at position 3"},
      {"a===b",
       "field_selector: unescaped '=' in value (write '\\=') at position 3"},
      {"a!==b",
       "field_selector: unescaped '=' in value (write '\\=') at position 3"},
      {"a=\\",
       "field_selector: value ends in an unfinished escape '\\' (write "
       "'\\\\') at position 2"},
      {"x=1,a=b\\x",
       "field_selector: invalid escape sequence \"\\\\x\" in value (only "
       "\\\\, \\, and \\= are escapes) at position 7"},
      {"a=\\\x01",
       "field_selector: invalid escape sequence \"\\\\\\x01\" in value (only "
       "\\\\, \\, and \\= are escapes) at position 2"},
  };
  for (const InvalidCase& c : cases) {
    absl::StatusOr<FieldSelector> selector = FieldSelector::Parse(c.text);
    ASSERT_FALSE(selector.ok())
        << c.text << " parsed as " << selector->String();
    EXPECT_EQ(selector.status().code(), absl::StatusCode::kInvalidArgument)
        << c.text;
    EXPECT_EQ(selector.status().message(), c.message) << c.text;
  }
}

TEST(FieldSelectorParseTest, ErrorsNameTheGivenField) {
  absl::StatusOr<FieldSelector> selector =
      FieldSelector::Parse("a", "request.fieldSelector");
  ASSERT_FALSE(selector.ok());
  EXPECT_THAT(std::string(selector.status().message()),
              StartsWith("request.fieldSelector: "));
}

TEST(FieldSelectorParseTest, TextLengthIsBounded) {
  const std::string longest =
      "a=" + std::string(FieldSelector::kMaxTextLength - 2, 'v');
  EXPECT_TRUE(FieldSelector::Parse(longest).ok());
  absl::StatusOr<FieldSelector> too_long = FieldSelector::Parse(longest + "v");
  ASSERT_FALSE(too_long.ok());
  EXPECT_EQ(too_long.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(too_long.status().message(),
            "field_selector: too long (4097 bytes; at most 4096)");
}

TEST(FieldSelectorParseTest, RequirementCountIsBounded) {
  std::string text = "f0=v";
  for (int i = 1; i < 100; ++i) absl::StrAppend(&text, ",f", i, "=v");
  absl::StatusOr<FieldSelector> hundred = FieldSelector::Parse(text);
  ASSERT_TRUE(hundred.ok()) << hundred.status();
  EXPECT_EQ(hundred->requirements().size(), 100);

  const size_t extra_position = text.size() + 1;
  absl::StatusOr<FieldSelector> too_many = FieldSelector::Parse(text + ",g=v");
  ASSERT_FALSE(too_many.ok());
  EXPECT_EQ(too_many.status().message(),
            absl::StrCat("field_selector: more than 100 requirements at "
                         "position ",
                         extra_position));
}

struct MatchCase {
  std::string selector;
  bool matches;
};

TEST(FieldSelectorMatchTest, MissingFieldsCompareAsEmpty) {
  const std::map<std::string, std::string, std::less<>> fields = {
      {"metadata.name", "web"},
      {"metadata.namespace", "default"},
      {"spec.odd", "a,b=c"}};
  auto lookup = [&](std::string_view field) -> std::optional<std::string_view> {
    auto it = fields.find(field);
    if (it == fields.end()) return std::nullopt;
    return it->second;
  };
  const std::vector<MatchCase> cases = {
      {"", true},
      {"metadata.name=web", true},
      {"metadata.name==web", true},
      {"metadata.name=other", false},
      {"metadata.name!=web", false},
      {"metadata.name!=other", true},
      {"metadata.name=web,metadata.namespace=default", true},
      {"metadata.name=web,metadata.namespace!=default", false},
      {"spec.nodeName=", true},
      {"spec.nodeName!=", false},
      {"spec.nodeName=x", false},
      {"spec.nodeName!=x", true},
      {"spec.odd=a\\,b\\=c", true},
  };
  for (const MatchCase& c : cases) {
    absl::StatusOr<FieldSelector> selector = FieldSelector::Parse(c.selector);
    ASSERT_TRUE(selector.ok()) << c.selector << ": " << selector.status();
    EXPECT_EQ(selector->Matches(lookup), c.matches) << c.selector;
  }
}

TEST(FieldSelectorTest, EqualityTerms) {
  absl::StatusOr<FieldSelector> selector =
      FieldSelector::Parse("c!=3,b==2,a=1\\,5");
  ASSERT_TRUE(selector.ok()) << selector.status();
  EXPECT_THAT(selector->EqualityTerms(),
              ElementsAre(Pair("a", "1,5"), Pair("b", "2")));
  EXPECT_TRUE(FieldSelector().EqualityTerms().empty());
}

// Random selector-like strings: Parse must never crash, must fail only with
// INVALID_ARGUMENT naming field and position, and whatever it accepts must
// print a canonical text that parses back to the same selector.
TEST(FieldSelectorRobustnessTest, RandomInputs) {
  const std::vector<std::string> pieces = {
      "a",  "b",   "metadata.name", "=",    "==", "!=", "!", ",",
      "\\", "\\,", "\\=",           "\\\\", " ",  "x",  "é", "."};
  const int valid = ParseRandomInputs<FieldSelector>(
      pieces, /*max_pieces=*/9, "field_selector",
      [](const std::string&, const FieldSelector&, const FieldSelector&) {});
  EXPECT_GT(valid, 1000);
}

}  // namespace
}  // namespace informerd::selector
