/* perfq: list counters, measure commands, run commands with perfq's layers. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

static const char usage[] =
    "usage: perfq <command> [options]\n"
    "\n"
    "commands:\n"
    "  list [--json]                 every counter group and counter, with unit, storage,\n"
    "                                type, scope, description and whether it is available\n"
    "                                here (and why not)\n"
    "  stat [options] -- CMD [ARGS]  run CMD with perfq's GL and OpenCL layers injected, count\n"
    "                                for it and its children, print a table (stderr by\n"
    "                                default) and exit with CMD's exit status. By default:\n"
    "                                the host counters, the NVIDIA device counters where\n"
    "                                NVML finds a device, and what the layers see: frames\n"
    "                                (count, CPU and GPU time per frame: mean, p50, p95,\n"
    "                                p99, max; the pipeline statistics per frame: vertices,\n"
    "                                primitives, shader invocations, clipper primitives,\n"
    "                                where the driver has them), GL memory by type and by\n"
    "                                tag at its peak and OpenCL commands by kernel and by\n"
    "                                command type (count, total, mean, p95 time, bytes);\n"
    "                                records the channel had to drop are counted\n"
    "                                (docs/perfq-stat.md)\n"
    "      -e, --events LIST         comma-separated counters (\"host/task-clock,proc-io/"
    "write-bytes\")\n"
    "                                instead of the default counters (host and device);\n"
    "                                default: CMD's rusage (user and system time, context\n"
    "                                switches, faults: wait4's accounting of CMD and the\n"
    "                                children it waited for, no perf event), host-hw where\n"
    "                                a PMU exists, proc-io bytes, and the device counters\n"
    "                                below; with -I the host software events (host/task-\n"
    "                                clock...) instead of the rusage rows\n"
    "      --no-device               without the device counters. By default every\n"
    "                                available counter of NVML's nvml-gpuN (but its PCIe\n"
    "                                throughput: -e) and gpm-gpuN where NVML finds a\n"
    "                                device (nothing is said of them where it does not):\n"
    "                                NVML starts on a thread of perfq 1 s after CMD's\n"
    "                                start (or past that at its first frame or OpenCL\n"
    "                                command if it is still starting its GL or OpenCL\n"
    "                                driver), so they count from when it is ready (the\n"
    "                                table says when) to CMD's exit; a CMD that ends\n"
    "                                sooner has none (--device). NVML's start slows a CMD\n"
    "                                busy in the same driver then by some tens of ms\n"
    "                                (once): --no-device to avoid it.\n"
    "                                CUPTI's cupti-gpuN: name them with -e\n"
    "      --device                  the device counters from CMD's start (NVML starts with\n"
    "                                CMD, slowing its own driver start by some ms), also\n"
    "                                beside -e, and say why they are missing where there\n"
    "                                are none\n"
    "      -I, --interval-print MS   (or --interval MS) also print the counters counted in\n"
    "                                every MS ms\n"
    "                                (10 to 3600000) while CMD runs, as 'perf stat -I'\n"
    "                                does; the last interval ends when CMD exits; the\n"
    "                                final table is the sum of the intervals. With --json:\n"
    "                                one JSON object per line per interval, then the total\n"
    "                                on one line too (JSON Lines)\n"
    "      --json                    print JSON instead of the table (bytes of CMD that are\n"
    "                                not UTF-8 become U+FFFD); exit_status is 128+N and\n"
    "                                signal N where signal N killed CMD, as perfq's exit\n"
    "      --csv                     print CSV instead of the table (one header, then rows;\n"
    "                                not with --json or -I)\n"
    "      -o, --output FILE         write the table or JSON to FILE instead of stderr; FILE\n"
    "                                is left as it was (not emptied, not created) when there\n"
    "                                is no report: a usage error, CMD not started\n"
    "      --no-layers               do not inject the layers: the counters only, CMD's\n"
    "                                environment as it is\n"
    "      --layers                  the default; accepted (does nothing)\n"
    "      --per-draw                with the layers (not with --no-layers): also every GL draw\n"
    "                                call, timed on the GPU (on the fence path, llvmpipe: two\n"
    "                                fences per draw) with its vertices and primitives: draws,\n"
    "                                GPU time per draw (mean, p50, p95, p99, max), draws per\n"
    "                                frame (docs/perfq-stat.md)\n"
    "      --stats-span MS           the pipeline statistics of frames shorter than MS\n"
    "                                milliseconds (0 to 10000; default 4) are measured over\n"
    "                                spans of frames lasting at least MS (and at least 100\n"
    "                                times what a span's end and begin cost): every frame is\n"
    "                                in one span, per frame = the span's totals / its frames;\n"
    "                                0: each frame its own (docs/perfq-stat.md)\n"
    "      --no-stats                with the layers: frames counted and timed, without the\n"
    "                                pipeline statistics (no statistics query is kept\n"
    "                                active). On llvmpipe an active query turns its overdraw\n"
    "                                elimination off: a fill-bound program without a depth\n"
    "                                buffer then renders up to 3-4 times slower under perfq\n"
    "                                stat, and --no-stats avoids that (docs/perfq-stat.md)\n"
    "  record -o FILE [options] -- CMD [ARGS]\n"
    "                                run CMD with the layers and write a timeline to FILE in the\n"
    "                                Chrome/Perfetto JSON trace format (open it in\n"
    "                                ui.perfetto.dev): frames and OpenCL enqueue calls per\n"
    "                                thread, GPU intervals of frames and OpenCL commands on the\n"
    "                                CPU clock, one track per GL context and OpenCL queue under\n"
    "                                its device, host counters as counter tracks; a valid file\n"
    "                                even when CMD crashes or is killed; exits with CMD's status\n"
    "                                (docs/perfq-record.md); a usage error leaves FILE as\n"
    "                                it was\n"
    "      -e, --events LIST         host counters to sample (default: task-clock,\n"
    "                                context-switches, page-faults, proc-io bytes)\n"
    "      -I, --interval MS         sampling period of the counters (10 to 3600000; 100)\n"
    "      --per-draw                also every GL draw call: its GPU interval on a track\n"
    "                                beside its context's (from its timer's stamps)\n"
    "      --stats-span MS           as perfq stat's (default 4): the vertices per frame\n"
    "                                counter is sampled at each span's end\n"
    "      --no-stats                as perfq stat's: no pipeline statistics (no vertices\n"
    "                                per frame counter)\n"
    "  serve [options]               a Prometheus endpoint: GET /metrics answers the text\n"
    "                                format 0.0.4 of the counters the continuous sampler\n"
    "                                reads (perfq_counted_total, perfq_level; labels device,\n"
    "                                group, counter, unit); SIGINT/SIGTERM stop it (exit 0)\n"
    "                                (docs/perfq-serve.md)\n"
    "      --listen ADDRESS:PORT     default 127.0.0.1:9464 (loopback); [::1]:PORT for IPv6,\n"
    "                                [::]:PORT every address (IPv4 too); a client has 10 s\n"
    "                                to send each request\n"
    "      -e, --events LIST         these counters only (default: every one it can sample)\n"
    "      -p, --pid PID             also sample this process (repeatable, each PID once);\n"
    "                                its series get pid=\"PID\"; without -p, process\n"
    "                                counters count perfq\n"
    "      -I, --interval MS         sampling period (10 to 3600000; 1000)\n"
    "  run [-v] -- CMD [ARGS]        run CMD with perfq's GL and OpenCL layers injected\n"
    "                                (LD_PRELOAD, OPENCL_LAYERS); -v says which. A layer\n"
    "                                that cannot be injected (not found, or a path with a\n"
    "                                space or ':') is an error: CMD is not run. CMD and\n"
    "                                its children answer 'perfq memory'\n"
    "  memory [--json] PID           the GL memory of a program started under 'perfq run'\n"
    "                                (asked from another terminal by the same user): per\n"
    "                                share group of GL contexts, KiB and allocations per\n"
    "                                object type (texture, renderbuffer, buffer) and per\n"
    "                                resource tag (GL_NV_query_resource_tag), and the\n"
    "                                device's total and free memory (docs/perfq-memory.md).\n"
    "                                A PID that does not answer (not under perfq run, no GL\n"
    "                                context made current yet, another user's) is an error\n"
    "\n"
    "  stat and record print a progress line (elapsed, frames, OpenCL commands) on stderr\n"
    "  while CMD runs when stderr is a terminal (on its bottom row, CMD's output scrolling\n"
    "  above it, where the terminal gives its size), and none otherwise or with TERM=dumb.\n"
    "\n"
    "  -h, --help                    this text (also after a command: perfq stat --help)\n"
    "  --version                     perfq's version\n"
    "\n"
    "Counter names are GROUP/COUNTER as 'perfq list' prints them; a bare COUNTER works when\n"
    "it is unique. Environment: PERFQ_DISABLE=GROUP,... marks groups unavailable;\n"
    "PERFQ_LAYER_DIR=DIR is where 'run' and 'stat' look for libperfq-gl.so (and its preload\n"
    "stub libperfq-gl-lazy.so) and libperfq-cl.so.\n"
    "Exit status: CMD's for stat, record and run (127 when CMD is not found, 126 when it cannot\n"
    "be executed, as env and timeout); 2 for bad arguments, unknown, ambiguous or unavailable\n"
    "counters, layers that cannot be injected (run, stat without --no-layers, record),\n"
    "addresses that cannot be listened on (serve), and a PID that does not answer (memory); 1\n"
    "when perfq cannot write its own output (the table, the JSON, the list: a full disk, for\n"
    "example).\n";

static const struct {
    const char *name;
    int (*run)(int argc, char **argv);
} commands[] = {
    {"list", cmd_list},   {"stat", cmd_stat}, {"record", cmd_record},
    {"serve", cmd_serve}, {"run", cmd_run},   {"memory", cmd_memory},
};

static int dispatch(int argc, char **argv)
{
    if (argc < 2) {
        fputs(usage, stderr);
        return CLI_EXIT_USAGE;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "-h") == 0 || strcmp(cmd, "--help") == 0 || strcmp(cmd, "help") == 0) {
        fputs(usage, stdout);
        return 0;
    }
    if (strcmp(cmd, "--version") == 0) {
        printf("perfq %s\n", PERFQ_VERSION_STRING);
        return 0;
    }
    for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
        if (strcmp(cmd, commands[i].name) != 0)
            continue;
        /* "perfq COMMAND --help" (or -h) as its first argument: the same text, which has
         * every command's options; a value that is an option's ("-o --help") is the
         * command's. */
        if (argc > 2 && (strcmp(argv[2], "-h") == 0 || strcmp(argv[2], "--help") == 0)) {
            fputs(usage, stdout);
            return 0;
        }
        return commands[i].run(argc - 1, argv + 1);
    }
    fprintf(stderr, "perfq: unknown command '%s'\n\n%s", cmd, usage);
    return CLI_EXIT_USAGE;
}

int main(int argc, char **argv)
{
    cli_output_begin(stdout);
    int rc = dispatch(argc, argv);
    /* What went to stdout (list, --help, --version) must have arrived. */
    if (cli_output_end(stdout, "standard output") != 0 && rc == 0)
        rc = CLI_EXIT_OUTPUT;
    return rc;
}
