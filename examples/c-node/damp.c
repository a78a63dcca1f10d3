/*
 * A flipgraph node plugin in C: `c_example/damp` damps the grid velocity,
 * u ← u·exp(−rate·dt) (the exact solution of du/dt = −rate·u over the step).
 *
 * Build against the header generated from the contract crate
 * (crates/flip-abi/include/flipgraph.h):
 *
 *   gcc -std=c11 -O2 -shared -fPIC -I crates/flip-abi/include \
 *       -o libflipgraph_c_example.so examples/c-node/damp.c -lm
 *
 * and put the library in a plugin folder (--plugin-dir, $FLIPGRAPH_PLUGIN_PATH or a bundle).
 * The pre- and post-conditions of every entry are the rustdoc of flip-abi (module `node`).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "flipgraph.h"

typedef struct {
    float rate;
} Damp;

static const PortDesc PORTS[2] = {
    {"velocity", "grid velocity", PORT_INPUT, DATA_FACE_VELOCITY, 0},
    {"velocity", "velocity damped by exp(-rate dt)", PORT_OUTPUT, DATA_FACE_VELOCITY,
     PORT_FROM_INPUT},
};

static const ParamDesc PARAMS[1] = {
    {"rate", "Rate", "damping rate (1/s): the velocity decays as exp(-rate t)", PARAM_FLOAT, 0.5,
     0.0, 100.0, NULL, 0},
};

static void set_error(ErrorBuf *error, const char *message) {
    if (error == NULL || error->data == NULL || error->capacity == 0) {
        return;
    }
    size_t n = strlen(message);
    if (n > error->capacity - 1) {
        n = error->capacity - 1;
    }
    memcpy(error->data, message, n);
    error->data[n] = '\0';
}

static int32_t describe(uint32_t index, NodeKindDesc *out) {
    if (index != 0 || out == NULL) {
        return STATUS_BAD_VALUE;
    }
    out->name = "damp";
    out->label = "Damping (C example)";
    out->category = "Forces";
    out->help = "Damps the grid velocity by exp(-rate dt) each step: a linear drag written in C.";
    out->ports = PORTS;
    out->port_count = 2;
    out->params = PARAMS;
    out->param_count = 1;
    out->acceleration_hint = 0.0;
    return STATUS_OK;
}

static int32_t create(uint32_t index, const ParamValue *params, uint32_t count,
                      const HostServices *services, void **instance, ErrorBuf *error) {
    (void)services;
    if (index != 0 || instance == NULL || (count > 0 && params == NULL)) {
        set_error(error, "no such node kind, or a null pointer");
        return STATUS_BAD_VALUE;
    }
    float rate = (float)PARAMS[0].default_;
    for (uint32_t i = 0; i < count; ++i) {
        if (params[i].name == NULL || strcmp(params[i].name, "rate") != 0) {
            set_error(error, "unknown parameter");
            return STATUS_BAD_VALUE;
        }
        double v = params[i].value;
        if (!(v >= PARAMS[0].min && v <= PARAMS[0].max)) {
            set_error(error, "`rate` is outside [0, 100]");
            return STATUS_BAD_VALUE;
        }
        rate = (float)v;
    }
    Damp *d = malloc(sizeof *d);
    if (d == NULL) {
        set_error(error, "out of memory");
        return STATUS_FAILED;
    }
    d->rate = rate;
    *instance = d;
    return STATUS_OK;
}

/* Faces normal to `axis` of a grid of `dims` cells. */
static size_t faces(const uint32_t dims[3], int axis) {
    size_t n = 1;
    for (int a = 0; a < 3; ++a) {
        n *= (size_t)dims[a] + (a == axis ? 1u : 0u);
    }
    return n;
}

static int32_t eval(void *instance, const NodeContext *ctx, const PortData *ports,
                    uint32_t port_count, const HostServices *services, ErrorBuf *error) {
    (void)services;
    const Damp *d = instance;
    if (d == NULL || ctx == NULL || ports == NULL || port_count != 2 || !ports[1].present) {
        set_error(error, "eval called without the declared ports");
        return STATUS_BAD_VALUE;
    }
    const FaceVelocityView *v = &ports[1].view.velocity;
    float *components[3] = {v->u, v->v, v->w};
    const float factor = expf(-d->rate * ctx->dt);
    for (uint32_t a = 0; a < ctx->dimension && a < 3; ++a) {
        const size_t n = faces(v->dims, (int)a);
        for (size_t i = 0; i < n; ++i) {
            components[a][i] *= factor;
        }
    }
    return STATUS_OK;
}

static void destroy(void *instance) { free(instance); }

static int32_t reset(void *instance, ErrorBuf *error) {
    (void)instance;
    (void)error;
    return STATUS_OK; /* nothing is carried between steps */
}

static const NodeTable TABLE = {
    {NODE_ABI_VERSION, sizeof(NodeTable), "flipgraph.node", "c_example", "C example nodes",
     "0.1.0"},
    1,
    describe,
    create,
    eval,
    destroy,
    reset,
    NULL,
    NULL,
    NULL,
};

const NodeTable *flipgraph_node_entry(void) { return &TABLE; }
