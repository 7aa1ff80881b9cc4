// Test helpers: Kubernetes-shaped JSON objects and cached Objects built
// through the real BuildObject path.
#ifndef INFORMERD_SERVER_CACHE_TEST_OBJECTS_H_
#define INFORMERD_SERVER_CACHE_TEST_OBJECTS_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "server/cache/object_builder.h"

namespace informerd::cache {

struct TestObjectSpec {
  std::string namespace_ = "default";
  std::string name;
  uint64_t resource_version = 1;
  std::string uid;  // defaults to "uid-" + name
  std::vector<std::pair<std::string, std::string>> labels;
  std::string node_name;  // spec.nodeName when non-empty
  std::string data;       // data.value when non-empty
};

// The object as the API server would serve it, with managedFields.
std::string TestObjectJson(const TestObjectSpec& spec);

// REQUIRES: the spec is valid (name set). Built with `schema`.
ObjectPtr MakeTestObject(const TestObjectSpec& spec, const ObjectSchema& schema = {});

}  // namespace informerd::cache

#endif  // INFORMERD_SERVER_CACHE_TEST_OBJECTS_H_
