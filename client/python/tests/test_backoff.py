import random

import pytest

from informerd import Backoff


def test_delays_double_up_to_the_maximum_with_jitter():
    backoff = Backoff(1.0, 4.0, random.Random(7))
    for ceiling in (1.0, 2.0, 4.0, 4.0):
        delay = backoff.next_delay()
        assert ceiling / 2 <= delay <= ceiling


def test_reset_starts_over():
    backoff = Backoff(1.0, 8.0, random.Random(7))
    for _ in range(3):
        backoff.next_delay()
    backoff.reset()
    assert backoff.next_delay() <= 1.0


def test_jitter_varies():
    delays = {Backoff(1.0, 1.0, random.Random(seed)).next_delay()
              for seed in range(5)}
    assert len(delays) > 1


@pytest.mark.parametrize("initial, maximum", [(0, 1), (2, 1), (-1, 1)])
def test_bad_bounds(initial, maximum):
    with pytest.raises(ValueError):
        Backoff(initial, maximum)


def test_default_delays_stay_within_a_second():
    # An informer must be back within ~1s of a restarted server.
    backoff = Backoff(rng=random.Random(3))
    delays = [backoff.next_delay() for _ in range(20)]
    assert max(delays) <= 1.0
    assert delays[-1] >= 0.5
