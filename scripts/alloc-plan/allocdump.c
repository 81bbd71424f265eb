// allocdump.c: an LD_PRELOAD shim (a developer tool, not part of LlamaFit) that writes the graph
// llama-server's scheduler hands to ggml-alloc at each reserve (and llama-fit-params' sized-only
// reserves): every leaf and node with its
// backend (0 = the first GPU, last = CPU), op, type, bytes, flags, view source and sources, plus
// the buffer sizes ggml-alloc chose. galloc_replay.py replays ggml-alloc over such a dump; it
// reproduced the logged Vulkan0 and Vulkan_Host compute buffers of every case it was run on.
// The struct layouts below restate ggml/include/ggml.h and ggml/src/ggml-impl.h of ggml 0.27.0
// (llama.cpp b11669): GGML_MAX_SRC 10, GGML_MAX_NAME 64. Build and run: see run-case.sh.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
struct tensor {
    int type;
    void* buffer;
    int64_t ne[4];
    size_t nb[4];
    int op;
    int32_t op_params[16];
    int32_t flags;
    struct tensor* src[10];
    struct tensor* view_src;
    size_t view_offs;
    void* data;
    char name[64];
    void* extra;
    char pad[8];
};
struct cgraph {
    int size, n_nodes, n_leafs;
    struct tensor** nodes;
    struct tensor** grads;
    struct tensor** grad_accs;
    struct tensor** leafs;
};
typedef bool (*reserve_fn)(void*, struct cgraph*, const int*, const int*);
typedef size_t (*size_fn)(void*, int);
typedef const char* (*name_fn)(int);
typedef size_t (*nbytes_fn)(const struct tensor*);
static int counter = 0;
// Writes one reserve's graph; `size_of(b)` is buffer b's planned size.
static void dump_graph(struct cgraph* g, const int* nb, const int* lb, size_t (*size_of)(void*, int),
                       void* ctx) {
    name_fn opn = (name_fn)dlsym(RTLD_DEFAULT, "ggml_op_name");
    name_fn tyn = (name_fn)dlsym(RTLD_DEFAULT, "ggml_type_name");
    nbytes_fn nbytes = (nbytes_fn)dlsym(RTLD_DEFAULT, "ggml_nbytes");
    const char* dir = getenv("GRAPH_DUMP");
    if (!dir)
        return;
    char path[512];
    snprintf(path, sizeof path, "%s.%d", dir, counter++);
    FILE* f = fopen(path, "w");
    int nbuf = atoi(getenv("GRAPH_NBUF") ? getenv("GRAPH_NBUF") : "2");
    for (int b = 0; b < nbuf; ++b)
        fprintf(f, "BUF %d %zu\n", b, size_of(ctx, b));
    for (int i = 0; i < g->n_leafs; ++i) {
        struct tensor* t = g->leafs[i];
        fprintf(f, "L %d %p %d %s %s %zu %d %d data=%d [%ld,%ld,%ld,%ld]\n", i, (void*)t, lb ? lb[i] : -1,
                t->name, tyn(t->type), nbytes(t), t->flags, 0, t->data != NULL || t->buffer != NULL, t->ne[0],
                t->ne[1], t->ne[2], t->ne[3]);
    }
    for (int i = 0; i < g->n_nodes; ++i) {
        struct tensor* t = g->nodes[i];
        fprintf(f, "N %d %p %d %s %s %s %zu %d view=%p pre=%d [%ld,%ld,%ld,%ld] nb=[%zu,%zu,%zu,%zu] src:", i,
                (void*)t, nb ? nb[i] : -1, t->name, opn(t->op), tyn(t->type), nbytes(t), t->flags,
                (void*)t->view_src, t->data != NULL || t->buffer != NULL, t->ne[0], t->ne[1], t->ne[2],
                t->ne[3], t->nb[0], t->nb[1], t->nb[2], t->nb[3]);
        for (int s = 0; s < 10; ++s)
            if (t->src[s])
                fprintf(f, " %p", (void*)t->src[s]);
        fprintf(f, "\n");
    }
    fclose(f);
}
bool ggml_gallocr_reserve_n(void* galloc, struct cgraph* g, const int* nb, const int* lb) {
    reserve_fn real = (reserve_fn)dlsym(RTLD_NEXT, "ggml_gallocr_reserve_n");
    bool ok = real(galloc, g, nb, lb);
    dump_graph(g, nb, lb, (size_fn)dlsym(RTLD_DEFAULT, "ggml_gallocr_get_buffer_size"), galloc);
    return ok;
}
// llama-fit-params measures without allocating (ggml_backend_sched_reserve_size): the sizes come
// back in an array, one per buffer.
typedef void (*reserve_size_fn)(void*, struct cgraph*, const int*, const int*, size_t*);
static size_t size_from_array(void* sizes, int b) {
    return ((size_t*)sizes)[b];
}
void ggml_gallocr_reserve_n_size(void* galloc, struct cgraph* g, const int* nb, const int* lb,
                                 size_t* sizes) {
    reserve_size_fn real = (reserve_size_fn)dlsym(RTLD_NEXT, "ggml_gallocr_reserve_n_size");
    real(galloc, g, nb, lb, sizes);
    dump_graph(g, nb, lb, size_from_array, sizes);
}
