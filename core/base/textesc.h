/*
 * textesc.c: the one rule for text that reaches a profile (see the
 * file; base room).
 */
#ifndef GP_BASE_TEXTESC_H
#define GP_BASE_TEXTESC_H

#include <stddef.h>

struct json_object;

#define TEXTESC_FRAME	0x1	/* ';' becomes '|' (one frame stays one) */
#define TEXTESC_LINES	0x2	/* '\n' is kept (multi-line text) */
int textesc_clean(const char *, size_t, int flags);
size_t textesc_len(const char *, size_t, int flags);
size_t textesc_write(char *dst, const char *, size_t, int flags);
char *textesc_dup(const char *, size_t, int flags, size_t *lenp);
/* Every string (and key) of a JSON tree under the rule, in place; values
 * of the top-level keys named in skip (NULL-terminated) are left alone. */
void textesc_json(struct json_object *, const char *const *skip);

#endif
