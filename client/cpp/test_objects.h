// Objects for the C++ client's tests, as informerd sends them: the routing
// fields set, and json a minimal object of that name.
#ifndef INFORMERD_CLIENT_CPP_TEST_OBJECTS_H_
#define INFORMERD_CLIENT_CPP_TEST_OBJECTS_H_

#include <string>
#include <utility>
#include <vector>

#include "informerd/v1/informerd.pb.h"

namespace informerd {
namespace client {

informerd::v1::Object MakeTestObject(
    const std::string& ns, const std::string& name, const std::string& version,
    const std::vector<std::pair<std::string, std::string>>& labels = {});

}  // namespace client
}  // namespace informerd

#endif  // INFORMERD_CLIENT_CPP_TEST_OBJECTS_H_
