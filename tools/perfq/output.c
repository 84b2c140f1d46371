/* perfq's own output (the table, the JSON, the list): a failed write is an error the user sees
 * (issue 14: `perfq stat -o /dev/full` and `perfq list >/dev/full` exited 0). stdio reports a
 * failed write through the stream's error flag and errno; the flag stays set, so checking once
 * at the end catches every failed write, also the last one at fflush or fclose. */
#include <errno.h>
#include <string.h>

#include "cli.h"

void cli_output_begin(FILE *f)
{
    clearerr(f);
    errno = 0;   /* so that the errno of a failed write is the one reported */
}

int cli_output_end(FILE *f, const char *name)
{
    int err = 0;
    if (fflush(f) != 0 || ferror(f))
        err = errno ? errno : EIO;
    if (f != stdout && f != stderr && fclose(f) != 0 && !err)
        err = errno ? errno : EIO;
    if (!err)
        return 0;
    fprintf(stderr, "perfq: cannot write %s: %s\n", name, strerror(err));
    return -1;
}
