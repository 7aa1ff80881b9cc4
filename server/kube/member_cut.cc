#include "server/kube/member_cut.h"

#include <utility>

#include "server/json/json_scan.h"

namespace informerd::kube {

MemberCut::MemberCut(std::vector<std::string> path) : path_(std::move(path)) {}

void MemberCut::Start(int depth) {
  searching_ = !path_.empty();
  reading_key_ = false;
  phase_ = Phase::kMembers;
  level_ = 0;
  searched_depth_ = depth;
  expect_key_ = true;
  key_.clear();
  member_begin_ = -1;
  last_comma_ = -1;
  open_brackets_ = 0;
  open_count_ = 0;
  cut_begin_ = -1;
  cut_end_ = -1;
}

void MemberCut::OnKeyEnd() {
  reading_key_ = false;
  if (key_ == path_[level_]) phase_ = Phase::kAfterKey;
}

// Follows the members of the object searched (the root, or the value of the
// path's keys matched so far) from one character between strings to the
// next.
void MemberCut::TrackMembers(char c, int depth, int64_t offset) {
  switch (phase_) {
    case Phase::kMembers:
      if (depth != searched_depth_) return;  // inside another member's value
      if (c == '"' && expect_key_) {
        expect_key_ = false;
        reading_key_ = true;
        key_.clear();
        member_begin_ = offset;
      } else if (c == ',') {
        expect_key_ = true;
        last_comma_ = offset;
      } else if (c == '}' || c == ']') {
        Stop();  // the object ends without the key
      }
      return;
    case Phase::kAfterKey:
      if (c == ':') {
        phase_ = Phase::kBeforeValue;
      } else if (!json::IsJsonSpace(c)) {
        Stop();  // not JSON: left to the parser
      }
      return;
    case Phase::kBeforeValue:
      if (json::IsJsonSpace(c)) return;
      if (level_ + 1 < path_.size()) {
        // An inner key of the path: its value must be an object to search.
        if (c != '{') return Stop();
        ++level_;
        ++searched_depth_;
        phase_ = Phase::kMembers;
        expect_key_ = true;
        last_comma_ = -1;
        return;
      }
      phase_ = Phase::kInValue;
      TrackValue(c, offset);
      return;
    case Phase::kInValue:
      TrackValue(c, offset);
      return;
  }
}

}  // namespace informerd::kube
