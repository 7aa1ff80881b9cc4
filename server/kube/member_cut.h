// MemberCut: finds one member of a JSON object, named by a path of keys
// (e.g. {"metadata", "managedFields"}), while a scanner walks the object's
// text, and gives the bytes to remove to cut it out, its comma included.
// It exists so that informerd never parses the managedFields of listed
// objects, which it drops anyway and which are about half of a typical
// object's bytes and more of its parse: the ListStreamDecoder drives it
// during the scan it makes to split a list, so finding them costs little.
// (A watch event has no such scan; one of its own cost what it saved.)
//
// The rules are RapidJSON's FindMember: at each level the first member of
// that name is followed, and only into an object. A key written with
// escapes at a level being searched ends the search (it might be the key,
// read as RapidJSON would), and so do anything but space between the key
// and its colon and brackets that do not pair up inside the value to cut:
// the text is then left whole, for the parser to judge.
// Inside the cut value only strings and brackets are checked, not the JSON
// grammar, so a path must name only members the caller drops.
//
// Thread safety: none; one MemberCut per scan.
#ifndef INFORMERD_SERVER_KUBE_MEMBER_CUT_H_
#define INFORMERD_SERVER_KUBE_MEMBER_CUT_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace informerd::kube {

class MemberCut {
 public:
  // An empty path finds nothing.
  explicit MemberCut(std::vector<std::string> path);

  // Starts a search in the object whose opening brace the scanner has just
  // passed; its members are at `depth` (the scanner's depth count inside
  // it). Forgets what an earlier search found.
  void Start(int depth);
  void Stop() {
    searching_ = false;
    reading_key_ = false;
  }

  bool searching() const { return searching_; }
  // True while the scanner is inside a key the search must read: it then
  // reports the key's bytes, and whether an escape or the closing quote
  // ended them.
  bool reading_key() const { return reading_key_; }
  void AppendKeyBytes(const char* data, size_t size) { key_.append(data, size); }
  void OnKeyEscape() { Stop(); }
  void OnKeyEnd();

  // A character outside strings (an opening quote included), at `offset` in
  // the object's text; `depth` is the scanner's depth before it.
  // REQUIRES: searching().
  void OnStructure(char c, int depth, int64_t offset) {
    if (phase_ == Phase::kInValue) {
      TrackValue(c, offset);
    } else {
      TrackMembers(c, depth, offset);
    }
  }

  // The bytes to remove, once found: [cut_begin(), cut_end()).
  bool found() const { return cut_end_ >= 0; }
  int64_t cut_begin() const { return cut_begin_; }
  int64_t cut_end() const { return cut_end_; }

 private:
  enum class Phase { kMembers, kAfterKey, kBeforeValue, kInValue };

  void TrackMembers(char c, int depth, int64_t offset);
  // Inside the value to cut: finds its end and checks its brackets pair up.
  // Called for every character between its strings, so inline and on bits.
  void TrackValue(char c, int64_t offset) {
    switch (c) {
      case '{':
      case '[':
        if (open_count_ == 64) return Stop();
        open_brackets_ = (open_brackets_ << 1) | (c == '{' ? 1 : 0);
        ++open_count_;
        return;
      case '}':
      case ']':
        if (open_count_ > 0) {
          if ((open_brackets_ & 1) != (c == '}' ? 1u : 0u)) return Stop();
          open_brackets_ >>= 1;
          --open_count_;
          return;
        }
        if (c == ']') return Stop();  // an object closed by a bracket
        // The last member: the comma before it goes with it, if any.
        return Found(last_comma_ >= 0 ? last_comma_ : member_begin_, offset);
      case ',':
        if (open_count_ > 0) return;
        // Not the last member: the comma after it goes with it.
        return Found(member_begin_, offset + 1);
      default:
        return;  // a scalar's characters, a string's opening quote, space
    }
  }
  void Found(int64_t begin, int64_t end) {
    cut_begin_ = begin;
    cut_end_ = end;
    Stop();
  }

  const std::vector<std::string> path_;
  bool searching_ = false;
  bool reading_key_ = false;
  Phase phase_ = Phase::kMembers;
  size_t level_ = 0;       // keys of the path matched so far
  int searched_depth_ = 0; // depth of the members of the object searched
  bool expect_key_ = false;
  std::string key_;
  int64_t member_begin_ = -1;  // the matched key's opening quote
  int64_t last_comma_ = -1;    // the last ',' between members of the object searched
  // Brackets open inside the value to cut, a bit each (1 for '{'); deeper
  // than 64 is left whole.
  uint64_t open_brackets_ = 0;
  int open_count_ = 0;
  int64_t cut_begin_ = -1;
  int64_t cut_end_ = -1;
};

}  // namespace informerd::kube

#endif  // INFORMERD_SERVER_KUBE_MEMBER_CUT_H_
