/*
 * The header's "application_metadata" list, deduplicated (meta.h).
 *
 * Each process sampled in a cycle gives an entry, and equal entries are
 * one.  Comparing each with every entry kept was quadratic in the
 * distinct entries, and a local user chooses how many there are: one
 * program run under 20,000 names gives 20,000 (bench/appmeta_cost).  So
 * an entry is found by its text in a hash table: json-c's, whose string
 * hash is seeded at random, so names cannot be chosen to collide.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>
#include <json-c/linkhash.h>

#include "meta/meta.h"

struct appmeta_set {
	struct json_object *list;	/* the caller's */
	struct lh_table *seen;		/* entry's text -> its index */
};

static void
appmeta_set_entry_free(struct lh_entry *ent)
{
	free(lh_entry_k(ent));
}

struct appmeta_set *
appmeta_set_new(struct json_object *list)
{
	struct appmeta_set *s;

	if ((s = calloc(1, sizeof(*s))) == NULL)
		return (NULL);
	s->list = list;
	if ((s->seen = lh_kchar_table_new(64, appmeta_set_entry_free)) ==
	    NULL) {
		free(s);
		return (NULL);
	}
	return (s);
}

uint32_t
appmeta_set_index(struct appmeta_set *s, struct json_object *md)
{
	const char *text;
	char *key;
	void *v;
	size_t n;

	if (md == NULL)
		return (0);
	/* Entries are built by one function, their keys in one order:
	 * equal entries have equal texts. */
	text = json_object_to_json_string_ext(md, JSON_C_TO_STRING_PLAIN);
	if (text != NULL && lh_table_lookup_ex(s->seen, text, &v)) {
		json_object_put(md);
		return ((uint32_t)(uintptr_t)v);
	}
	n = json_object_array_length(s->list);
	if (json_object_array_add(s->list, md) != 0) {
		json_object_put(md);
		return (0);
	}
	/* Out of memory, an entry not remembered is only listed twice. */
	if (text != NULL && (key = strdup(text)) != NULL &&
	    lh_table_insert(s->seen, key, (void *)(uintptr_t)n) != 0)
		free(key);
	return ((uint32_t)n);
}

void
appmeta_set_free(struct appmeta_set *s)
{
	if (s == NULL)
		return;
	lh_table_free(s->seen);
	free(s);
}
