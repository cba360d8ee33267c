/*
 * The core of decoding pushed bytes (incremental_internal.h): the unconsumed input, the calls' messages and state,
 * and the calls into the format's part (png_push.c, jpeg_push.c), which holds the codec's state.
 */
#include "codecs_internal.h"
#include "incremental_internal.h"

#include <stdlib.h>
#include <string.h>

static void use_message(clanes_incremental *d, clanes_incremental_call *call) {
    d->message = call->message;
    d->capacity = call->message_capacity;
}

static int32_t finish_call(clanes_incremental *d, clanes_incremental_call *call, int32_t status) {
    d->state.held_bytes = d->input_capacity + d->part->held(d);
    call->state = d->state;
    return status;
}

/* Appends bytes after dropping the consumed ones; 0 when out of memory. */
static int append_input(clanes_incremental *d, const uint8_t *data, size_t size) {
    if (d->position > 0) {
        memmove(d->input, d->input + d->position, d->size - d->position);
        d->size -= d->position;
        d->position = 0;
    }
    if (size == 0) {
        return 1;
    }
    if (d->size + size > d->input_capacity) {
        size_t capacity = d->input_capacity < 4096 ? 4096 : d->input_capacity;
        while (capacity < d->size + size) {
            capacity *= 2;
        }
        uint8_t *grown = (uint8_t *)realloc(d->input, capacity);
        if (grown == NULL) {
            return 0;
        }
        d->input = grown;
        d->input_capacity = capacity;
    }
    memcpy(d->input + d->size, data, size);
    d->size += size;
    return 1;
}

int32_t clanes_incremental_create(const clanes_incremental_options *options, clanes_incremental **decoder,
                                  char *message, size_t message_capacity) {
    if (options == NULL || decoder == NULL || options->part == NULL) {
        clanes_set_message(message, message_capacity, "an incremental decoder needs a format's part");
        return CLANES_ERR_ARGUMENT;
    }
    int32_t scale = options->scale_denom;
    if (scale > 1 && (!options->part->scales || (scale != 2 && scale != 4 && scale != 8))) {
        clanes_set_message(message, message_capacity, "scale 1/%d is not available for this format", scale);
        return CLANES_ERR_ARGUMENT;
    }
    clanes_incremental *d = (clanes_incremental *)calloc(1, sizeof(clanes_incremental));
    *decoder = d;
    if (d == NULL) {
        clanes_set_message(message, message_capacity, "out of memory creating a decoder");
        return CLANES_ERR_NO_MEMORY;
    }
    d->part = options->part;
    d->options = *options;
    d->message = message;
    d->capacity = message_capacity;
    return d->part->start(d);
}

int32_t clanes_incremental_feed(clanes_incremental *d, clanes_incremental_call *call) {
    if (d == NULL || call == NULL || (call->data == NULL && call->size > 0)) {
        return CLANES_ERR_ARGUMENT;
    }
    use_message(d, call);
    if (!append_input(d, call->data, call->size)) {
        clanes_set_message(call->message, call->message_capacity, "out of memory for %zu bytes of input", call->size);
        return finish_call(d, call, CLANES_ERR_NO_MEMORY);
    }
    d->end_of_input = d->end_of_input || call->end_of_input;
    return finish_call(d, call, d->part->advance(d));
}

int32_t clanes_incremental_read(clanes_incremental *d, clanes_incremental_call *call) {
    if (d == NULL || call == NULL || call->rows == NULL || !d->state.header_ready
        || call->bytes_per_row < d->row_bytes || call->count > d->state.height - d->state.rows_read) {
        if (call != NULL) {
            clanes_set_message(call->message, call->message_capacity, "bad rows for an incremental decoder");
        }
        return CLANES_ERR_ARGUMENT;
    }
    use_message(d, call);
    call->delivered = 0;
    int32_t status = d->part->read(d, call);
    d->state.rows_read += call->delivered;
    return finish_call(d, call, status);
}

int32_t clanes_incremental_preview(clanes_incremental *d, clanes_incremental_call *call) {
    if (d == NULL || call == NULL || call->rows == NULL || d->state.previews_ready == 0 || d->state.rows_read > 0
        || call->bytes_per_row < d->row_bytes) {
        if (call != NULL) {
            clanes_set_message(call->message, call->message_capacity, "no preview to render");
        }
        return CLANES_ERR_ARGUMENT;
    }
    use_message(d, call);
    return finish_call(d, call, d->part->preview(d, call));
}

void clanes_incremental_destroy(clanes_incremental *d) {
    if (d == NULL) return;
    d->part->close(d);
    free(d->input);
    free(d);
}
