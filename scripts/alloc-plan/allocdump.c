// allocdump.c: an LD_PRELOAD shim (a developer tool, not part of LlamaFit) that writes, at each
// reserve, the graph llama.cpp hands to ggml's scheduler and the graph the scheduler hands to
// ggml-alloc.
//
// $GRAPH_DUMP.pre.N (GRAPH_PRE=1): the graph before ggml_backend_sched_split_graph, as the sizing
// engine's scheduler port reads it (core/sizing/scheduler, tests/data/plans/README.md): the
// scheduler's backends with their default buffer types, then every leaf and node with op, type,
// ne, nb, flags, view source and offset, the buffer of a pre-allocated tensor (weights, KV cache)
// with its usage, the backend llama.cpp pinned it to (ggml_backend_sched_set_tensor_backend), the
// op parameters and the sources.
// $GRAPH_DUMP.N: the graph after the split, as ggml-alloc sees it: every leaf and node with its
// backend (0 = the first GPU, last = CPU), op, type, bytes, flags, view source and sources, the
// index of the same tensor in the .pre dump (pre#, -1 for the scheduler's copies), plus the buffer
// sizes ggml-alloc chose. galloc_replay.py replays ggml-alloc over such a dump; it reproduced the
// logged Vulkan0 and Vulkan_Host compute buffers of every case it was run on.
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
// Pointer -> index in the last .pre dump, so the post-split dump can name each original tensor.
#define MAP_SLOTS (1 << 18)
static const void* map_keys[MAP_SLOTS];
static int map_values[MAP_SLOTS];
static void map_clear(void) {
    memset(map_keys, 0, sizeof map_keys);
}
static void map_put(const void* key, int value) {
    size_t h = ((size_t)key >> 4) & (MAP_SLOTS - 1);
    while (map_keys[h] && map_keys[h] != key)
        h = (h + 1) & (MAP_SLOTS - 1);
    map_keys[h] = key;
    map_values[h] = value;
}
static int map_get(const void* key) {
    if (!key)
        return -1;
    size_t h = ((size_t)key >> 4) & (MAP_SLOTS - 1);
    while (map_keys[h]) {
        if (map_keys[h] == key)
            return map_values[h];
        h = (h + 1) & (MAP_SLOTS - 1);
    }
    return -1;
}
typedef void* (*ptr_fn)(const void*);
typedef const char* (*pname_fn)(const void*);
typedef int (*count_fn)(void*);
typedef void* (*index_fn)(void*, int);
typedef void* (*sched_buft_fn)(void*, void*);
typedef bool (*bool_fn)(const void*);
typedef int (*usage_fn)(const void*);
typedef void* (*tensor_backend_fn)(void*, const struct tensor*);
static int pre_counter = 0;
// One tensor of the pre-split graph: "T id L|N|X op type ne0 ne1 ne2 ne3 nb0 nb1 nb2 nb3 flags view
// view_offs buffer usage host pinned-backend n-params params... | slot:source... | name". Sources and views
// that are not in the graph (a view's parent, a weight read through a view) are written first, as "X".
static int pre_id = 0;
static void write_pre_tensor(FILE* f, const struct tensor* t, char kind, void* sched);
static int pre_visit(FILE* f, const struct tensor* t, void* sched) {
    if (!t)
        return -1;
    int id = map_get(t);
    if (id >= 0)
        return id;
    write_pre_tensor(f, t, 'X', sched);
    return map_get(t);
}
static void write_pre_tensor(FILE* f, const struct tensor* t, char kind, void* sched) {
    int srcs[10];
    for (int s = 0; s < 10; ++s) // ggml_cast's result is its own second source: written as "self"
        srcs[s] = t->src[s] == t ? -2 : pre_visit(f, t->src[s], sched);
    int view = pre_visit(f, t->view_src, sched);
    name_fn opn = (name_fn)dlsym(RTLD_DEFAULT, "ggml_op_name");
    name_fn tyn = (name_fn)dlsym(RTLD_DEFAULT, "ggml_type_name");
    ptr_fn buffer_type = (ptr_fn)dlsym(RTLD_DEFAULT, "ggml_backend_buffer_get_type");
    pname_fn buft_name = (pname_fn)dlsym(RTLD_DEFAULT, "ggml_backend_buft_name");
    usage_fn usage = (usage_fn)dlsym(RTLD_DEFAULT, "ggml_backend_buffer_get_usage");
    bool_fn is_host = (bool_fn)dlsym(RTLD_DEFAULT, "ggml_backend_buffer_is_host");
    tensor_backend_fn tensor_backend =
        (tensor_backend_fn)dlsym(RTLD_DEFAULT, "ggml_backend_sched_get_tensor_backend");
    index_fn sched_backend = (index_fn)dlsym(RTLD_DEFAULT, "ggml_backend_sched_get_backend");
    count_fn n_backends = (count_fn)dlsym(RTLD_DEFAULT, "ggml_backend_sched_get_n_backends");
    int id = pre_id++;
    map_put(t, id);
    int pinned = -1;
    void* backend = sched ? tensor_backend(sched, t) : NULL;
    for (int b = 0; backend && b < n_backends(sched); ++b)
        if (sched_backend(sched, b) == backend)
            pinned = b;
    fprintf(f, "T %d %c %s %s %ld %ld %ld %ld %zu %zu %zu %zu %d %d %zu ", id, kind, opn(t->op), tyn(t->type),
            t->ne[0], t->ne[1], t->ne[2], t->ne[3], t->nb[0], t->nb[1], t->nb[2], t->nb[3], t->flags, view,
            t->view_offs);
    if (t->buffer)
        fprintf(f, "%s %d %d ", buft_name(buffer_type(t->buffer)), usage(t->buffer),
                is_host(t->buffer) ? 1 : 0);
    else
        fprintf(f, "- -1 0 ");
    int n_params = 16; // the op parameters up to the last one that is not zero
    while (n_params > 0 && t->op_params[n_params - 1] == 0)
        --n_params;
    fprintf(f, "%d %d", pinned, n_params);
    for (int p = 0; p < n_params; ++p)
        fprintf(f, " %d", t->op_params[p]);
    fprintf(f, " |");
    for (int s = 0; s < 10; ++s)
        if (t->src[s] == t)
            fprintf(f, " %d:self", s);
        else if (t->src[s])
            fprintf(f, " %d:%d", s, srcs[s]);
    fprintf(f, " | %s\n", t->name);
}
static void dump_pre(void* sched, struct cgraph* g) {
    const char* dir = getenv("GRAPH_DUMP");
    if (!dir || !getenv("GRAPH_PRE"))
        return;
    count_fn n_backends = (count_fn)dlsym(RTLD_DEFAULT, "ggml_backend_sched_get_n_backends");
    index_fn sched_backend = (index_fn)dlsym(RTLD_DEFAULT, "ggml_backend_sched_get_backend");
    sched_buft_fn sched_buft = (sched_buft_fn)dlsym(RTLD_DEFAULT, "ggml_backend_sched_get_buffer_type");
    pname_fn backend_name = (pname_fn)dlsym(RTLD_DEFAULT, "ggml_backend_name");
    pname_fn buft_name = (pname_fn)dlsym(RTLD_DEFAULT, "ggml_backend_buft_name");
    bool_fn buft_is_host = (bool_fn)dlsym(RTLD_DEFAULT, "ggml_backend_buft_is_host");
    char path[512];
    snprintf(path, sizeof path, "%s.pre.%d", dir, pre_counter++);
    FILE* f = fopen(path, "w");
    if (!f)
        return;
    map_clear();
    pre_id = 0;
    for (int b = 0; b < n_backends(sched); ++b) {
        void* backend = sched_backend(sched, b);
        void* buft = sched_buft(sched, backend);
        fprintf(f, "BACKEND %d %s %s %d\n", b, backend_name(backend), buft_name(buft),
                buft_is_host(buft) ? 1 : 0);
    }
    for (int i = 0; i < g->n_leafs; ++i)
        if (map_get(g->leafs[i]) < 0)
            write_pre_tensor(f, g->leafs[i], 'L', sched);
    for (int i = 0; i < g->n_nodes; ++i) {
        if (map_get(g->nodes[i]) >= 0) {
            fprintf(f, "ORDER N %d\n", map_get(g->nodes[i])); // written earlier as another's source
            continue;
        }
        write_pre_tensor(f, g->nodes[i], 'N', sched);
    }
    fclose(f);
}
typedef bool (*sched_reserve_fn)(void*, struct cgraph*);
bool ggml_backend_sched_reserve(void* sched, struct cgraph* g) {
    dump_pre(sched, g);
    sched_reserve_fn real = (sched_reserve_fn)dlsym(RTLD_NEXT, "ggml_backend_sched_reserve");
    return real(sched, g);
}
typedef void (*sched_reserve_size_fn)(void*, struct cgraph*, size_t*);
void ggml_backend_sched_reserve_size(void* sched, struct cgraph* g, size_t* sizes) {
    dump_pre(sched, g);
    sched_reserve_size_fn real = (sched_reserve_size_fn)dlsym(RTLD_NEXT, "ggml_backend_sched_reserve_size");
    real(sched, g, sizes);
}
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
        fprintf(f, "L %d %p %d %s %s %zu %d %d data=%d [%ld,%ld,%ld,%ld] pre#%d\n", i, (void*)t,
                lb ? lb[i] : -1, t->name, tyn(t->type), nbytes(t), t->flags, 0,
                t->data != NULL || t->buffer != NULL, t->ne[0], t->ne[1], t->ne[2], t->ne[3], map_get(t));
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
        fprintf(f, " pre#%d\n", map_get(t));
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
