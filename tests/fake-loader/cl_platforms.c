/* Prints the name of every platform clGetPlatformIDs lists, in order, one a line (built against
 * the fake loader's soname; whichever libOpenCL.so.1 the run binds decides). */
#include <stddef.h>
#include <stdio.h>

int clGetPlatformIDs(unsigned num_entries, void **platforms, unsigned *num_platforms);
int clGetPlatformInfo(void *platform, unsigned name, size_t size, void *value, size_t *size_ret);

int main(void)
{
    void *p[16];
    unsigned n = 0;
    int rc = clGetPlatformIDs(16, p, &n);
    if (rc != 0) {
        printf("clGetPlatformIDs: %d\n", rc);
        return 1;
    }
    for (unsigned i = 0; i < n && i < 16; i++) {
        char name[256] = "";
        clGetPlatformInfo(p[i], 0x0902 /* CL_PLATFORM_NAME */, sizeof(name), name, NULL);
        printf("%s\n", name);
    }
    return 0;
}
