#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "rapidjson/document.h"
#include "rapidjson/stringbuffer.h"
#include "server/cache/field_mask.h"
#include "server/cache/field_mask_oracle.h"
#include "server/cache/field_mask_projection.h"
#include "server/cache/field_mask_registry.h"
#include "server/cache/json_writer.h"
#include "server/cache/object.h"

namespace informerd::cache {
namespace {

FieldMask Mask(const std::vector<std::string>& paths, bool with_metadata = false) {
  absl::StatusOr<FieldMask> mask = FieldMask::Parse(paths, with_metadata);
  EXPECT_TRUE(mask.ok()) << mask.status();
  return mask.ok() ? *std::move(mask) : FieldMask();
}

std::string Compact(const std::string& json) {
  rapidjson::Document document;
  document.Parse(json.data(), json.size());
  EXPECT_FALSE(document.HasParseError()) << json;
  rapidjson::StringBuffer output;
  JsonWriter writer(output);
  document.Accept(writer);
  return output.GetString();
}

TEST(FieldMask, CanonicalSortedDeduplicatedAndCollapsed) {
  FieldMask mask = Mask({"spec.nodeName", "spec", "status.podIP", "status.podIP", "a-b", "a",
                         "a.b", "metadata.name"});
  EXPECT_EQ(mask.paths(),
            (std::vector<std::string>{"a", "a-b", "apiVersion", "kind", "metadata.name",
                                      "metadata.namespace", "metadata.resourceVersion",
                                      "metadata.uid", "spec", "status.podIP"}));
  // The same selection written otherwise is the same mask.
  EXPECT_EQ(mask.key(), Mask({"status.podIP", "a", "spec", "a-b"}).key());
  EXPECT_NE(mask.key(), Mask({"status.podIP", "a", "spec"}).key());
  // metadata covers the identity paths.
  EXPECT_EQ(Mask({"spec"}, true).paths(),
            (std::vector<std::string>{"apiVersion", "kind", "metadata", "spec"}));
  EXPECT_EQ(Mask({"metadata.labels", "metadata"}).key(), "apiVersion,kind,metadata");
  EXPECT_TRUE(Mask({}).empty());
  EXPECT_TRUE(Mask({}, true).empty());
}

TEST(FieldMask, MalformedPathsNameTheirIndex) {
  auto error = [](const std::vector<std::string>& paths) {
    absl::StatusOr<FieldMask> mask = FieldMask::Parse(paths);
    EXPECT_EQ(mask.status().code(), absl::StatusCode::kInvalidArgument) << paths.back();
    return std::string(mask.status().message());
  };
  EXPECT_EQ(error({"spec", ""}), "fields[1] \"\": empty path");
  EXPECT_EQ(error({"spec..x"}), "fields[0] \"spec..x\": empty segment");
  EXPECT_EQ(error({".spec"}), "fields[0] \".spec\": empty segment");
  EXPECT_EQ(error({"spec."}), "fields[0] \"spec.\": empty segment");
  EXPECT_EQ(error({"a\"b"}),
            "fields[0] \"a\"b\": a segment may not hold '\"', '\\' or control characters");
  EXPECT_EQ(error({std::string(600, 'a')}), "fields[0]: longer than 512 bytes");
  std::vector<std::string> deep(33, "a");
  EXPECT_EQ(error({absl::StrJoin(deep, ".")}).substr(0, 10), "fields[0] ");
  EXPECT_EQ(error(std::vector<std::string>(65, "spec")), "fields: 65 paths; at most 64");
}

TEST(FieldMaskProjection, KeepsNamedMembersInTheirOrder) {
  const std::string pod = Compact(R"({"kind":"Pod","apiVersion":"v1",
      "metadata":{"name":"a","namespace":"n","uid":"u","resourceVersion":"5","generation":2,
                  "labels":{"app":"x","tier":"}\"{"},"annotations":{"k":"[\\\"]"}},
      "spec":{"nodeName":"node-1","containers":[{"name":"c","image":"i1","args":["}"]},
                                                 {"image":"i2","name":"d"},{"name":"e"}]},
      "status":{"phase":"Running"}})");
  EXPECT_EQ(FieldMaskProjection(pod, Mask({"spec.nodeName", "status.podIP",
                                           "spec.containers.image", "metadata.labels.tier"})),
            R"({"kind":"Pod","apiVersion":"v1","metadata":{"name":"a","namespace":"n","uid":"u",)"
            R"("resourceVersion":"5","labels":{"tier":"}\"{"}},"spec":{"nodeName":"node-1",)"
            R"("containers":[{"image":"i1"},{"image":"i2"},{}]},"status":{}})");
  EXPECT_EQ(FieldMaskProjection(pod, Mask({"metadata"})),
            R"({"kind":"Pod","apiVersion":"v1","metadata":)" +
                pod.substr(pod.find("{\"name\""), pod.find(",\"spec\"") - pod.find("{\"name\"")) +
                "}");
}

TEST(FieldMaskProjection, ScalarsWhereTheMaskGoesDeeperAreKept) {
  const std::string json = R"({"a":"x","b":null,"c":[1,[2,{"d":3,"e":4}]],"f":{"d":[]}})";
  EXPECT_EQ(FieldMaskProjection(json, Mask({"a.d", "b.d", "c.d", "f.d.g"})),
            R"({"a":"x","b":null,"c":[1,[2,{"d":3}]],"f":{"d":[]}})");
}

// Random objects and masks from a small vocabulary: the builder agrees with
// pruning the parsed document.
TEST(FieldMaskProjection, AgreesWithPruningTheParse) {
  std::mt19937 random(36);
  const std::vector<std::string> names = {"a", "b", "c", "metadata", "name", "kind"};
  std::function<void(int, rapidjson::Value*, rapidjson::Document::AllocatorType&)> fill =
      [&](int depth, rapidjson::Value* value, rapidjson::Document::AllocatorType& allocator) {
        const int pick = depth > 4 ? random() % 3 : random() % 5;
        if (pick == 0) {
          value->SetString("s,}\"]", allocator);
        } else if (pick == 1) {
          value->SetInt(static_cast<int>(random() % 100) - 50);
        } else if (pick == 2) {
          value->SetNull();
        } else if (pick == 3) {
          value->SetArray();
          for (int i = random() % 4; i > 0; --i) {
            rapidjson::Value element;
            fill(depth + 1, &element, allocator);
            value->PushBack(element, allocator);
          }
        } else {
          value->SetObject();
          for (int i = random() % 5; i > 0; --i) {
            rapidjson::Value member;
            fill(depth + 1, &member, allocator);
            value->AddMember(rapidjson::Value(names[random() % names.size()].c_str(), allocator),
                             member, allocator);
          }
        }
      };
  for (int round = 0; round < 2000; ++round) {
    rapidjson::Document document;
    document.SetObject();
    for (int i = random() % 6; i > 0; --i) {
      rapidjson::Value member;
      fill(1, &member, document.GetAllocator());
      document.AddMember(rapidjson::Value(names[random() % names.size()].c_str(),
                                          document.GetAllocator()),
                         member, document.GetAllocator());
    }
    rapidjson::StringBuffer output;
    JsonWriter writer(output);
    document.Accept(writer);
    const std::string json = output.GetString();
    std::vector<std::string> paths;
    for (int i = 1 + random() % 3; i > 0; --i) {
      std::string path = names[random() % names.size()];
      for (int j = random() % 3; j > 0; --j) absl::StrAppend(&path, ".", names[random() % names.size()]);
      paths.push_back(path);
    }
    FieldMask mask = Mask(paths);
    ASSERT_EQ(FieldMaskProjection(json, mask), PrunedJson(json, mask))
        << json << " mask " << mask.key();
  }
}

// The projection keeps a number's text; the oracle reads it back exactly
// (field_mask_projection_fuzzer found a double a rounding re-read wrote
// back otherwise).
TEST(FieldMaskProjection, NumbersKeepTheirText) {
  rapidjson::Document document;
  document.Parse(R"({"kind":1111111111111111111111.185888888888888888888,"a":1e-7,"b":[0.1,3]})");
  ASSERT_FALSE(document.HasParseError());
  rapidjson::StringBuffer output;
  JsonWriter writer(output);
  document.Accept(writer);
  const std::string json = output.GetString();
  for (const FieldMask& mask : {Mask({"a"}), Mask({"b"}), Mask({"bl{.app"})}) {
    EXPECT_EQ(FieldMaskProjection(json, mask), PrunedJson(json, mask)) << json << " mask " << mask.key();
  }
}

TEST(FieldMaskProjection, TruncatedTextStaysInside) {
  const std::string json = R"({"spec":{"containers":[{"image":"i","x":[1,{"y":"}"}]}]},"z":1})";
  FieldMask mask = Mask({"spec.containers.image", "spec.containers.x.y"});
  for (size_t size = 0; size <= json.size(); ++size) {
    // Never reads past the prefix (ASan would say) and never throws.
    std::string prefix = json.substr(0, size);
    (void)FieldMaskProjection(prefix, mask);
  }
}

std::shared_ptr<const Object> Pod(const std::string& json) {
  Object::Metadata metadata;
  metadata.namespace_ = "n";
  metadata.name = "a";
  metadata.uid = "u";
  metadata.resource_version = "5";
  return Object::Create(metadata, 5, {}, json);
}

TEST(ObjectMasked, BuiltOncePerInternedMaskAndShared) {
  FieldMaskRegistry registry(8);
  auto first = registry.Intern(Mask({"spec.nodeName"}));
  auto same = registry.Intern(Mask({"spec.nodeName", "spec.nodeName"}));
  ASSERT_TRUE(first.ok() && same.ok());
  EXPECT_EQ(first->get(), same->get());
  auto object = Pod(R"({"kind":"Pod","metadata":{"name":"a"},"spec":{"nodeName":"x","y":1}})");
  const int64_t before = Object::MaskedFormBytes();
  std::shared_ptr<const Object> masked = object->Masked(**first);
  EXPECT_EQ(masked->json(), R"({"kind":"Pod","metadata":{"name":"a"},"spec":{"nodeName":"x"}})");
  EXPECT_EQ(masked->name(), "a");
  EXPECT_EQ(masked->resource_version(), "5");
  EXPECT_EQ(object->Masked(**same).get(), masked.get());
  EXPECT_EQ(Object::MaskedFormBytes(), before + static_cast<int64_t>(masked->wire().size()));
  // A mask that is not interned is built every time.
  FieldMask loose = Mask({"spec.nodeName"});
  EXPECT_NE(object->Masked(loose).get(), masked.get());
  EXPECT_EQ(object->Masked(loose)->json(), masked->json());
  masked.reset();
  object.reset();
  EXPECT_EQ(Object::MaskedFormBytes(), before);
}

TEST(ObjectMasked, KeepsAtMostAFewFormsLeastRecentlyUsedFirst) {
  FieldMaskRegistry registry(16);
  auto object = Pod(R"({"kind":"Pod","a":1,"b":2,"c":3,"d":4,"e":5})");
  std::vector<std::shared_ptr<const FieldMask>> masks;
  for (const char* path : {"a", "b", "c", "d", "e"}) masks.push_back(*registry.Intern(Mask({path})));
  const int64_t before = Object::MaskedFormBytes();
  const Object* form_a = object->Masked(*masks[0]).get();
  for (size_t i = 1; i < Object::kMaskedFormsPerObject; ++i) object->Masked(*masks[i]);
  EXPECT_EQ(object->Masked(*masks[0]).get(), form_a);  // a is now the most recent
  object->Masked(*masks[4]);                           // pushes out b, the oldest
  EXPECT_EQ(object->Masked(*masks[0]).get(), form_a);
  const int64_t held = Object::MaskedFormBytes() - before;
  // Four forms of about 40 bytes each (the fifth build replaced one).
  EXPECT_LE(held, static_cast<int64_t>(Object::kMaskedFormsPerObject * 64));
  EXPECT_GT(held, 0);
}

TEST(FieldMaskRegistry, BoundedDropsUnheldMasksAndRefusesWhenAllAreHeld) {
  FieldMaskRegistry registry(2);
  auto a = registry.Intern(Mask({"a"}));
  auto b = registry.Intern(Mask({"b"}));
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(registry.size(), 2u);
  auto c = registry.Intern(Mask({"c"}));
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_NE(c.status().message().find("at most 2 distinct field masks"), std::string::npos)
      << c.status();
  const uint64_t a_id = (*a)->id();
  a->reset();  // a is no longer held: it makes room
  c = registry.Intern(Mask({"c"}));
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(registry.size(), 2u);
  b->reset();
  c->reset();
  // a asked again is a new mask: its old forms are never served for it.
  auto again = registry.Intern(Mask({"a"}));
  ASSERT_TRUE(again.ok());
  EXPECT_NE((*again)->id(), a_id);
  EXPECT_EQ(registry.size(), 2u);
}

}  // namespace
}  // namespace informerd::cache
