// Test helper shared by the label and field selector tests: random
// selector-like texts for a parser, and what must hold for each.
#ifndef INFORMERD_SELECTOR_RANDOM_INPUTS_H_
#define INFORMERD_SELECTOR_RANDOM_INPUTS_H_

#include <random>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace informerd::selector {

// Parses 20,000 texts of up to `max_pieces` random `pieces` (and a random
// byte now and then) with Selector::Parse, which must never crash, must
// fail only with INVALID_ARGUMENT naming `field` and a position, and must
// print whatever it accepts as a canonical text that parses back to the
// same selector. `check(text, selector, reparsed)` sees each accepted one.
// Returns how many were accepted.
template <typename Selector, typename Check>
int ParseRandomInputs(const std::vector<std::string>& pieces, int max_pieces,
                      const std::string& field, Check check) {
  std::mt19937 random(20240601);
  int valid = 0;
  for (int i = 0; i < 20000; ++i) {
    std::string text;
    const int length = static_cast<int>(random() % (max_pieces + 1));
    for (int j = 0; j < length; ++j) {
      if (random() % 20 == 0) {
        text.push_back(static_cast<char>(random() % 256));
      } else {
        text += pieces[random() % pieces.size()];
      }
    }
    absl::StatusOr<Selector> selector = Selector::Parse(text);
    if (!selector.ok()) {
      EXPECT_EQ(selector.status().code(), absl::StatusCode::kInvalidArgument) << text;
      EXPECT_THAT(std::string(selector.status().message()),
                  ::testing::StartsWith(absl::StrCat(field, ": ")))
          << text;
      EXPECT_THAT(std::string(selector.status().message()), ::testing::HasSubstr(" at position "))
          << text;
      continue;
    }
    ++valid;
    absl::StatusOr<Selector> reparsed = Selector::Parse(selector->String());
    if (!reparsed.ok()) {
      ADD_FAILURE() << text << " -> " << selector->String() << ": " << reparsed.status();
      continue;
    }
    EXPECT_EQ(reparsed->String(), selector->String()) << text;
    EXPECT_EQ(reparsed->requirements(), selector->requirements()) << text;
    check(text, *selector, *reparsed);
  }
  return valid;
}

}  // namespace informerd::selector

#endif  // INFORMERD_SELECTOR_RANDOM_INPUTS_H_
