#include "selector/label_selector.h"

#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "selector/random_inputs.h"
#include "selector/labels.h"

namespace informerd::selector {
namespace {

using Operator = LabelRequirement::Operator;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Pair;
using ::testing::StartsWith;

struct ValidCase {
  std::string text;
  std::string canonical;
};

TEST(LabelSelectorParseTest, ValidSelectorsAndTheirCanonicalForm) {
  const std::vector<ValidCase> cases = {
      {"", ""},
      {" \t\r\n", ""},
      {"x=a", "x=a"},
      {"x==a", "x=a"},
      {"x!=a", "x!=a"},
      {" x = a ", "x=a"},
      {"x\t==\na", "x=a"},
      {"x", "x"},
      {"!x", "!x"},
      {" ! x ", "!x"},
      {"x=", "x="},
      {"x==", "x="},
      {"x!=", "x!="},
      {"x=,y", "x=,y"},
      {"x in (a)", "x in (a)"},
      {" x  in  ( b , a ) ", "x in (a,b)"},
      {"x in(a)", "x in (a)"},
      {"x in (a,a)", "x in (a)"},
      {"x notin (b,a)", "x notin (a,b)"},
      {"x in ()", "x in ()"},
      {"x in (,)", "x in ()"},
      {"x in (,a)", "x in (,a)"},
      {"x in (a,)", "x in (,a)"},
      {"x in (a,,b)", "x in (,a,b)"},
      {"x notin ()", "x notin ()"},
      {"x>1", "x>1"},
      {"x > 007", "x>007"},
      {"x<10", "x<10"},
      {"z=1,a=2", "a=2,z=1"},
      {"a,a=2", "a=2,a"},
      {"a=2,a=1", "a=1,a=2"},
      {"in in (in,notin)", "in in (in,notin)"},
      {"notin=in", "notin=in"},
      {"!in", "!in"},
      {"example.com/app=web", "example.com/app=web"},
      {"a=b,!c,d notin (e)", "a=b,!c,d notin (e)"},
      {"A.b-C_d=E.f-G_h", "A.b-C_d=E.f-G_h"},
      {std::string(63, 'k') + "=" + std::string(63, 'v'),
       std::string(63, 'k') + "=" + std::string(63, 'v')},
  };
  for (const ValidCase& c : cases) {
    absl::StatusOr<LabelSelector> selector = LabelSelector::Parse(c.text);
    ASSERT_TRUE(selector.ok()) << c.text << ": " << selector.status();
    EXPECT_EQ(selector->String(), c.canonical) << c.text;
    EXPECT_EQ(selector->Empty(), c.canonical.empty()) << c.text;
  }
}

TEST(LabelSelectorParseTest, Requirements) {
  absl::StatusOr<LabelSelector> selector =
      LabelSelector::Parse("x in (b,a),!y,z==c,w>5");
  ASSERT_TRUE(selector.ok()) << selector.status();
  EXPECT_THAT(selector->requirements(),
              ElementsAre(LabelRequirement{"w", Operator::kGreaterThan, {"5"}},
                          LabelRequirement{"x", Operator::kIn, {"a", "b"}},
                          LabelRequirement{"y", Operator::kDoesNotExist, {}},
                          LabelRequirement{"z", Operator::kEquals, {"c"}}));
}

struct InvalidCase {
  std::string text;
  std::string message;  // The full status message.
};

TEST(LabelSelectorParseTest, InvalidSelectorsNameFieldAndPosition) {
  const std::vector<InvalidCase> cases = {
      {",",
       "label_selector: unexpected token \",\" at position 0; expected a "
       "label key or '!'"},
      {"x=a,",
       "label_selector: unexpected end of input at position 4; expected a "
       "label key or '!'"},
      {"x=a,,y",
       "label_selector: unexpected token \",\" at position 4; expected a "
       "label key or '!'"},
      {"x in (a",
       "label_selector: unexpected end of input at position 7; expected ',' "
       "or ')'"},
      {"x in a",
       "label_selector: unexpected token \"a\" at position 5; expected '('"},
      {"x in",
       "label_selector: unexpected end of input at position 4; expected '('"},
      {"x in (a b)",
       "label_selector: unexpected token \"b\" at position 8; expected ',' or "
       "')'"},
      {"x in ((a))",
       "label_selector: unexpected token \"(\" at position 6; expected ',' or "
       "')'"},
      {"x (a)",
       "label_selector: unexpected token \"(\" at position 2; expected an "
       "operator (=, ==, !=, in, notin, >, <), ',' or end of input"},
      {"x y",
       "label_selector: unexpected token \"y\" at position 2; expected an "
       "operator (=, ==, !=, in, notin, >, <), ',' or end of input"},
      {"x)",
       "label_selector: unexpected token \")\" at position 1; expected an "
       "operator (=, ==, !=, in, notin, >, <), ',' or end of input"},
      {"!x=a",
       "label_selector: unexpected token \"=\" at position 2; expected ',' or "
       "end of input"},
      {"!",
       "label_selector: unexpected end of input at position 1; expected a "
       "label key after '!'"},
      {"!!x",
       "label_selector: unexpected token \"!\" at position 1; expected a "
       "label key after '!'"},
      {"x=a=b",
       "label_selector: unexpected token \"=\" at position 3; expected ',' or "
       "end of input"},
      {"x===a",
       "label_selector: unexpected token \"=\" at position 3; expected a "
       "value"},
      {"x=(a)",
       "label_selector: unexpected token \"(\" at position 2; expected a "
       "value"},
      {"x<>1",
       "label_selector: unexpected token \">\" at position 2; expected a "
       "value"},
      {"x=a b",
       "label_selector: unexpected token \"b\" at position 4; expected ',' or "
       "end of input"},
      {"x notin",
       "label_selector: unexpected end of input at position 7; expected '('"},
      {"x>a",
       "label_selector: value \"a\" for label key \"x\" must be an integer "
       "for '>' and '<' at position 2"},
      {"x>",
       "label_selector: value \"\" for label key \"x\" must be an integer for "
       "'>' and '<' at position 2"},
      {"x<99999999999999999999",
       "label_selector: value \"99999999999999999999\" for label key \"x\" "
       "must be an integer for '>' and '<' at position 2"},
      {"x=-a",
       "label_selector: invalid value \"-a\" for label key \"x\" (a label "
       "value must be empty or consist of alphanumeric characters, '-', '_' "
       "or '.', and must start and end with an alphanumeric character) at "
       "position 2"},
      {"-x=a",
       "label_selector: invalid label key \"-x\" (name part must consist of "
       "alphanumeric characters, '-', '_' or '.', and must start and end with "
       "an alphanumeric character) at position 0"},
      {"a=b,c/d/e",
       "label_selector: invalid label key \"c/d/e\" (a label key is a name "
       "with an optional DNS subdomain prefix and '/' (e.g. "
       "'example.com/MyName'), with at most one '/') at position 4"},
      {"x=\x01",
       "label_selector: invalid value \"\\x01\" for label key \"x\" (a label "
       "value must be empty or consist of alphanumeric characters, '-', '_' "
       "or '.', and must start and end with an alphanumeric character) at "
       "position 2"},
  };
  for (const InvalidCase& c : cases) {
    absl::StatusOr<LabelSelector> selector = LabelSelector::Parse(c.text);
    ASSERT_FALSE(selector.ok())
        << c.text << " parsed as " << selector->String();
    EXPECT_EQ(selector.status().code(), absl::StatusCode::kInvalidArgument)
        << c.text;
    EXPECT_EQ(selector.status().message(), c.message) << c.text;
  }
}

TEST(LabelSelectorParseTest, MoreInvalidSelectors) {
  for (const std::string& text :
       std::vector<std::string>{"x>-1",
                                "x>+1",
                                "x in (-a)",
                                "x in (a,-b)",
                                "Example.com/a=b",
                                "/a",
                                "a/",
                                "é=1",
                                "x=" + std::string(64, 'v'),
                                std::string(64, 'k'),
                                "x in (a)b",
                                "x in (a))",
                                "x notin in",
                                "(",
                                ")",
                                "=",
                                "!=a",
                                "x!",
                                "x!a",
                                "x==,",
                                "x,,",
                                std::string("x=a\0", 4)}) {
    absl::StatusOr<LabelSelector> selector = LabelSelector::Parse(text);
    ASSERT_FALSE(selector.ok()) << text << " parsed as " << selector->String();
    EXPECT_EQ(selector.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(selector.status().message()),
                StartsWith("label_selector: "));
    EXPECT_THAT(std::string(selector.status().message()),
                HasSubstr(" at position "));
  }
}

TEST(LabelSelectorParseTest, ErrorsNameTheGivenField) {
  absl::StatusOr<LabelSelector> selector =
      LabelSelector::Parse("a,", "spec.selector");
  ASSERT_FALSE(selector.ok());
  EXPECT_THAT(std::string(selector.status().message()),
              StartsWith("spec.selector: "));
}

TEST(LabelSelectorParseTest, TextLengthIsBounded) {
  const std::string longest =
      "k=" + std::string(LabelSelector::kMaxTextLength - 2, ' ');
  EXPECT_TRUE(LabelSelector::Parse(longest).ok());
  absl::StatusOr<LabelSelector> too_long = LabelSelector::Parse(longest + " ");
  ASSERT_FALSE(too_long.ok());
  EXPECT_EQ(too_long.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(too_long.status().message(),
            "label_selector: too long (4097 bytes; at most 4096)");
}

TEST(LabelSelectorParseTest, RequirementCountIsBounded) {
  std::string text = "k0";
  for (int i = 1; i < 100; ++i) absl::StrAppend(&text, ",k", i);
  absl::StatusOr<LabelSelector> hundred = LabelSelector::Parse(text);
  ASSERT_TRUE(hundred.ok()) << hundred.status();
  EXPECT_EQ(hundred->requirements().size(), 100);

  const size_t extra_position = text.size() + 1;
  absl::StatusOr<LabelSelector> too_many = LabelSelector::Parse(text + ",k");
  ASSERT_FALSE(too_many.ok());
  EXPECT_EQ(too_many.status().message(),
            absl::StrCat("label_selector: more than 100 requirements at "
                         "position ",
                         extra_position));
}

struct MatchCase {
  std::string selector;
  bool matches;
};

TEST(LabelSelectorMatchTest, FollowsApimachinerySemantics) {
  const Labels labels = {{"app", "web"},
                         {"empty", ""},
                         {"env", "prod"},
                         {"negative", "-5"},
                         {"num", "10"}};
  const std::vector<MatchCase> cases = {
      {"", true},
      {"app=web", true},
      {"app==web", true},
      {"app=db", false},
      {"missing=x", false},
      {"missing=", false},
      {"empty=", true},
      {"empty in ()", true},
      {"app!=web", false},
      {"app!=db", true},
      {"missing!=x", true},
      {"missing!=", true},
      {"empty!=", false},
      {"app in (db,web)", true},
      {"app in (db)", false},
      {"missing in (a)", false},
      {"app notin (web)", false},
      {"app notin (db)", true},
      {"missing notin (a)", true},
      {"app", true},
      {"missing", false},
      {"!app", false},
      {"!missing", true},
      {"num>9", true},
      {"num>10", false},
      {"num<11", true},
      {"num<10", false},
      {"negative<0", true},
      {"app>1", false},
      {"missing>1", false},
      {"missing<1", false},
      {"app=web,env=prod", true},
      {"app=web,env=dev", false},
      {"app=web,!env", false},
  };
  for (const MatchCase& c : cases) {
    absl::StatusOr<LabelSelector> selector = LabelSelector::Parse(c.selector);
    ASSERT_TRUE(selector.ok()) << c.selector << ": " << selector.status();
    EXPECT_EQ(selector->Matches(labels), c.matches) << c.selector;
  }
}

TEST(LabelSelectorMatchTest, EmptyLabels) {
  const Labels none;
  EXPECT_TRUE(LabelSelector().Matches(none));
  EXPECT_TRUE(LabelSelector::Parse("a!=b,c notin (d),!e")->Matches(none));
  EXPECT_FALSE(LabelSelector::Parse("a")->Matches(none));
}

TEST(LabelSelectorTest, EqualityTerms) {
  absl::StatusOr<LabelSelector> selector = LabelSelector::Parse(
      "d!=5,a=1,b in (2),c in (3,4),e,f==6,g notin (7),h>8");
  ASSERT_TRUE(selector.ok()) << selector.status();
  EXPECT_THAT(selector->EqualityTerms(),
              ElementsAre(Pair("a", "1"), Pair("b", "2"), Pair("f", "6")));
  EXPECT_TRUE(LabelSelector().EqualityTerms().empty());
}

TEST(FindLabelTest, BinarySearchesSortedLabels) {
  const Labels labels = {{"a", "1"}, {"b", "2"}, {"d", "4"}};
  ASSERT_NE(FindLabel(labels, "b"), nullptr);
  EXPECT_EQ(*FindLabel(labels, "b"), "2");
  EXPECT_EQ(*FindLabel(labels, "d"), "4");
  EXPECT_EQ(FindLabel(labels, "c"), nullptr);
  EXPECT_EQ(FindLabel(labels, "e"), nullptr);
  EXPECT_EQ(FindLabel(Labels(), "a"), nullptr);
}

// Random selector-like strings: Parse must never crash, must fail only with
// INVALID_ARGUMENT naming field and position, and whatever it accepts must
// print a canonical text that parses back to the same selector.
TEST(LabelSelectorRobustnessTest, RandomInputs) {
  const std::vector<std::string> pieces = {
      "a",  "b",  "app", "x.io/", "in", "notin", " ",  "\t", "=",
      "==", "!=", "!",   "(",     ")",  ",",     "<",  ">",  "1",
      "-",  "_",  ".",   "/",     "é",  "Z",     "10", "\\"};
  const std::vector<Labels> label_sets = {
      {}, {{"a", "1"}}, {{"a", "b"}, {"app", "10"}, {"b", ""}}};
  const int valid = ParseRandomInputs<LabelSelector>(
      pieces, /*max_pieces=*/11, "label_selector",
      [&](const std::string& text, const LabelSelector& selector, const LabelSelector& reparsed) {
        for (const Labels& labels : label_sets) {
          EXPECT_EQ(reparsed.Matches(labels), selector.Matches(labels)) << text;
        }
      });
  // The alphabet must reach the valid grammar often enough to test it.
  EXPECT_GT(valid, 1000);
}

}  // namespace
}  // namespace informerd::selector
