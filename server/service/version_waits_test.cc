#include "server/service/version_waits.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"

namespace informerd::service {
namespace {

// Records each wait's outcome: "reached" or "timed out".
class Outcomes {
 public:
  std::function<void(bool)> Record(std::string name) {
    return [this, name](bool reached) {
      absl::MutexLock lock(&mu_);
      got_.push_back(name + (reached ? " reached" : " timed out"));
    };
  }
  // Waits until n outcomes arrived, then returns them.
  std::vector<std::string> Await(size_t n) {
    absl::MutexLock lock(&mu_);
    auto enough = [this, n]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return got_.size() >= n; };
    mu_.AwaitWithTimeout(absl::Condition(&enough), absl::Seconds(30));
    return got_;
  }

 private:
  absl::Mutex mu_;
  std::vector<std::string> got_ ABSL_GUARDED_BY(mu_);
};

void Sync(informer::Informer& informer, const std::string& version) {
  informer.OnListStart();
  informer.OnListEnd(version);
}

TEST(VersionWaits, EachWaitEndsOnceReachedOrTimedOut) {
  informer::Informer informer{informer::InformerOptions{}};
  Outcomes outcomes;
  VersionWaits waits;
  waits.Wait(&informer, 10, absl::Now() + absl::Seconds(60), outcomes.Record("a"));
  waits.Wait(&informer, 50, absl::Now() + absl::Milliseconds(50), outcomes.Record("b"));
  EXPECT_EQ(outcomes.Await(1), std::vector<std::string>{"b timed out"});
  Sync(informer, "60");  // b's version, reached after its deadline, calls nothing
  EXPECT_EQ(outcomes.Await(2), (std::vector<std::string>{"b timed out", "a reached"}));
  waits.Wait(&informer, 60, absl::Now() + absl::Seconds(60), outcomes.Record("c"));
  EXPECT_EQ(outcomes.Await(3).back(), "c reached");  // at once
}

// What a reached wait's `done` holds (a read's waiting permit) is released
// when it runs, not when the wait's deadline passes: otherwise a caller
// whose reads each wait briefly is refused for "too many reads waiting"
// while none waits.
TEST(VersionWaits, AReachedWaitReleasesWhatItsDoneHoldsAtOnce) {
  informer::Informer informer{informer::InformerOptions{}};
  Sync(informer, "10");
  VersionWaits waits;
  auto permit = std::make_shared<int>(0);
  absl::Notification reached;
  waits.Wait(&informer, 20, absl::Now() + absl::Seconds(60),
             [permit, &reached](bool ok) {
               EXPECT_TRUE(ok);
               reached.Notify();
             });
  EXPECT_EQ(permit.use_count(), 2);  // held by the pending wait
  Sync(informer, "20");
  ASSERT_TRUE(reached.WaitForNotificationWithTimeout(absl::Seconds(30)));
  EXPECT_EQ(permit.use_count(), 1);
}

TEST(VersionWaits, DestructionEndsWhatStillWaits) {
  informer::Informer informer{informer::InformerOptions{}};
  Outcomes outcomes;
  {
    VersionWaits waits;
    waits.Wait(&informer, 10, absl::Now() + absl::Hours(1), outcomes.Record("d"));
  }
  EXPECT_EQ(outcomes.Await(1), std::vector<std::string>{"d timed out"});
  Sync(informer, "10");  // the informer forgot it: no second outcome
  EXPECT_EQ(outcomes.Await(1).size(), 1u);
}

TEST(VersionWaits, ManyRacingWaitsEachEndExactlyOnce) {
  informer::Informer informer{informer::InformerOptions{}};
  Outcomes outcomes;
  constexpr int kWaits = 500;
  {
    VersionWaits waits;
    for (int i = 0; i < kWaits; ++i) {
      // Deadlines spread around the moment the version arrives.
      waits.Wait(&informer, 5, absl::Now() + absl::Microseconds(10 * i),
                 outcomes.Record(std::to_string(i)));
    }
    Sync(informer, "5");
    EXPECT_EQ(outcomes.Await(kWaits).size(), static_cast<size_t>(kWaits));
  }
  // Nothing more after every wait ended and the waits are gone.
  EXPECT_EQ(outcomes.Await(kWaits).size(), static_cast<size_t>(kWaits));
}

}  // namespace
}  // namespace informerd::service
