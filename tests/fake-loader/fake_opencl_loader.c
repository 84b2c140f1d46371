/* A stand-in for an ICD loader that ignores layers (like the CUDA toolkit's libOpenCL.so.1):
 * it exists so that the CLI test can check that `perfq run` notices and preloads a loader that
 * reads the layer variable. It exports one function and never names that variable. */
__attribute__((visibility("default"))) int perfq_fake_opencl_loader(void);

int perfq_fake_opencl_loader(void)
{
    return 1;
}
