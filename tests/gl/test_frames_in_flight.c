/*
 * When perfq stat's frame front end reads an ended frame (src/gl/stat/frames_in_flight.h), on
 * numbers, without GL: the rule at its edges, then programs of constant frame times run through
 * it as stat_frames.c's swap does (read the oldest while the rule says so, if the GPU is done
 * with it or the ring is full, then the frame just ended joins the pending ones), checking how
 * many frames stay in flight, how old a frame is when it is read, and how often a read waits
 * for a GPU that runs behind.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "gl/stat/frames_in_flight.h"

#define US 1000ull
#define MS 1000000ull

static void test_rule_edges(void **state)
{
    (void)state;
    /* Fewer than 8 ended after it: never read, however old (a program whose GPU is up to 8
     * frames behind is not made to wait sooner than before). */
    assert_false(perfq_gl_frames_read_oldest(PERFQ_GL_FRAMES_WAIT - 1, 3600000 * MS));
    /* 8: read once it ended 4 ms ago, not a nanosecond before. */
    assert_false(perfq_gl_frames_read_oldest(PERFQ_GL_FRAMES_WAIT,
                                             PERFQ_GL_FRAMES_READ_AGE_NS - 1));
    assert_true(perfq_gl_frames_read_oldest(PERFQ_GL_FRAMES_WAIT, PERFQ_GL_FRAMES_READ_AGE_NS));
    /* A full ring reads whatever the age. */
    assert_false(perfq_gl_frames_read_oldest(PERFQ_STAT_GL_FRAMES_IN_FLIGHT - 1, 0));
    assert_true(perfq_gl_frames_read_oldest(PERFQ_STAT_GL_FRAMES_IN_FLIGHT, 0));
    assert_int_equal(PERFQ_GL_FRAMES_WAIT, 8);
    assert_int_equal(PERFQ_GL_FRAMES_READ_AGE_NS, 4 * MS);
    assert_int_equal(PERFQ_STAT_GL_FRAMES_IN_FLIGHT, 128);
}

struct outcome {
    unsigned most_in_flight;   /* ended frames not read, after a swap (its frame included) */
    uint64_t youngest_read;    /* frames ended after the one read (at its swap or before it) */
    uint64_t reads;
    uint64_t waits;            /* reads of a frame the GPU was not done with */
};

/* `frames` swaps `frame_ns` apart, as swap() runs the rule: a ring of swap times. The GPU is
 * done with each frame lag_ns after its swap. */
static struct outcome run_behind(uint64_t frame_ns, unsigned frames, uint64_t lag_ns)
{
    static uint64_t ring[PERFQ_STAT_GL_FRAMES_IN_FLIGHT];
    unsigned head = 0, count = 0;
    uint64_t next_index = 0, head_index = 0;
    struct outcome o = {0, UINT64_MAX, 0, 0};
    /* Swap i ends frame i: reads first, then frame i joins the pending ones. */
    for (unsigned i = 0; i < frames; i++) {
        uint64_t now = (uint64_t)(i + 1) * frame_ns;
        while (count && perfq_gl_frames_read_oldest(count, now - ring[head])) {
            if (ring[head] + lag_ns > now) {   /* not done: kept, unless the ring is full */
                if (!perfq_gl_frames_wait_oldest(count))
                    break;
                o.waits++;
            }
            uint64_t after = next_index - head_index;   /* frame i among them */
            if (after < o.youngest_read)
                o.youngest_read = after;
            head = (head + 1) % PERFQ_STAT_GL_FRAMES_IN_FLIGHT;
            head_index++;
            count--;
            o.reads++;
        }
        assert_true(count < PERFQ_STAT_GL_FRAMES_IN_FLIGHT);   /* room for the frame ending */
        ring[(head + count) % PERFQ_STAT_GL_FRAMES_IN_FLIGHT] = now;
        count++;
        next_index++;
        if (count > o.most_in_flight)
            o.most_in_flight = count;
    }
    return o;
}

/* A GPU that keeps up: every frame is done by its own swap. */
static struct outcome run(uint64_t frame_ns, unsigned frames)
{
    struct outcome o = run_behind(frame_ns, frames, 0);
    assert_int_equal(o.waits, 0);
    return o;
}

static void test_short_frames_keep_128(void **state)
{
    (void)state;
    /* 17 us frames (the NVIDIA example's): 4 ms is 235 of them, so the ring bounds it. */
    struct outcome o = run(17 * US, 3000);
    assert_int_equal(o.most_in_flight, PERFQ_STAT_GL_FRAMES_IN_FLIGHT);
    assert_int_equal(o.youngest_read, PERFQ_STAT_GL_FRAMES_IN_FLIGHT);
    assert_int_equal(o.reads, 3000 - PERFQ_STAT_GL_FRAMES_IN_FLIGHT);
}

static void test_mid_frames_keep_their_last_4ms(void **state)
{
    (void)state;
    /* 100 us frames: a frame is read 4 ms (40 frames) after its end. */
    struct outcome o = run(100 * US, 2000);
    assert_int_equal(o.youngest_read, 40);
    assert_int_equal(o.most_in_flight, 40);
}

static void test_long_frames_keep_8(void **state)
{
    (void)state;
    /* 0.5 ms and longer: 8 in flight, as before the rule (read 8 swaps after its end, never
     * sooner: a GPU up to 8 frames behind is not waited for). */
    uint64_t times[] = {500 * US, 2 * MS, 16 * MS, 1000 * MS};
    for (size_t k = 0; k < sizeof times / sizeof times[0]; k++) {
        struct outcome o = run(times[k], 200);
        assert_int_equal(o.most_in_flight, PERFQ_GL_FRAMES_WAIT);
        assert_int_equal(o.youngest_read, PERFQ_GL_FRAMES_WAIT);
        assert_int_equal(o.reads, 200 - PERFQ_GL_FRAMES_WAIT);
    }
}

/* Several contexts taking turns on the GPU (8 threads on the NVIDIA driver: 1 ms frames, each
 * run on the GPU up to 60 ms after its swap): no read waits; the frames stay pending until the
 * GPU is done with them (60 in flight at most), and every one is read. Before, a frame 8 swaps
 * and 4 ms old was read waiting: here every read waited, 52 ms each. */
static void test_gpu_behind_not_waited(void **state)
{
    (void)state;
    struct outcome o = run_behind(1 * MS, 1000, 60 * MS);
    assert_int_equal(o.waits, 0);
    assert_int_equal(o.most_in_flight, 60);
    assert_int_equal(o.youngest_read, 60);
    assert_int_equal(o.reads, 1000 - 60);
}

/* A GPU further behind than the ring holds (17 us frames, done 10 ms after their swap: 589
 * frames): the ring stays bounded, and a full ring waits for its oldest, once a swap. */
static void test_gpu_far_behind_bounded(void **state)
{
    (void)state;
    struct outcome o = run_behind(17 * US, 3000, 10 * MS);
    assert_int_equal(o.most_in_flight, PERFQ_STAT_GL_FRAMES_IN_FLIGHT);
    assert_int_equal(o.youngest_read, PERFQ_STAT_GL_FRAMES_IN_FLIGHT);
    assert_int_equal(o.reads, 3000 - PERFQ_STAT_GL_FRAMES_IN_FLIGHT);
    assert_int_equal(o.waits, o.reads);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gpu_behind_not_waited),
        cmocka_unit_test(test_gpu_far_behind_bounded),
        cmocka_unit_test(test_rule_edges),
        cmocka_unit_test(test_short_frames_keep_128),
        cmocka_unit_test(test_mid_frames_keep_their_last_4ms),
        cmocka_unit_test(test_long_frames_keep_8),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
