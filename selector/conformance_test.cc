// The shared selector vectors (tests/conformance/selectors.json), with the
// apiserver's verdicts, against the selectors informerd and the C++ client
// both use.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "gtest/gtest.h"
#include "selector/field_selector.h"
#include "selector/label_selector.h"
#include "selector/labels.h"
#include "tests/conformance/vectors.h"

namespace informerd::selector {
namespace {

using conformance::SelectorCase;
using conformance::SelectorObject;
using conformance::SelectorVectors;

SelectorVectors Load() {
  absl::StatusOr<SelectorVectors> vectors = conformance::LoadSelectorVectors();
  EXPECT_TRUE(vectors.ok()) << vectors.status();
  return vectors.ok() ? *std::move(vectors) : SelectorVectors{};
}

TEST(SelectorConformance, LabelSelectorVectors) {
  SelectorVectors vectors = Load();
  ASSERT_FALSE(vectors.label_selectors.empty());
  for (const SelectorCase& c : vectors.label_selectors) {
    absl::StatusOr<LabelSelector> selector = LabelSelector::Parse(c.selector);
    EXPECT_EQ(selector.ok(), c.valid)
        << "label selector \"" << c.selector << "\": " << selector.status()
        << "; the apiserver says valid=" << c.valid;
    if (!selector.ok() || !c.valid) continue;
    std::vector<std::string> matches;
    for (const SelectorObject& object : vectors.objects) {
      if (selector->Matches(object.labels)) matches.push_back(object.name);
    }
    EXPECT_EQ(matches, c.matches) << "label selector \"" << c.selector << "\"";
  }
}

TEST(SelectorConformance, FieldSelectorVectors) {
  SelectorVectors vectors = Load();
  ASSERT_FALSE(vectors.field_selectors.empty());
  for (const SelectorCase& c : vectors.field_selectors) {
    absl::StatusOr<FieldSelector> selector = FieldSelector::Parse(c.selector);
    EXPECT_EQ(selector.ok(), c.valid)
        << "field selector \"" << c.selector << "\": " << selector.status()
        << "; the apiserver says valid=" << c.valid;
    if (!selector.ok() || !c.valid) continue;
    std::vector<std::string> matches;
    for (const SelectorObject& object : vectors.objects) {
      auto lookup = [&](std::string_view field) -> std::optional<std::string_view> {
        if (field == "metadata.name") return object.name;
        if (field == "metadata.namespace") return vectors.namespace_;
        return std::nullopt;
      };
      if (selector->Matches(lookup)) matches.push_back(object.name);
    }
    EXPECT_EQ(matches, c.matches) << "field selector \"" << c.selector << "\"";
  }
}

}  // namespace
}  // namespace informerd::selector
