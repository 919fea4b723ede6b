/*
 * The files the ELF reader gave up on: see elfbad.h.
 */
#include "config.h"

#include <string.h>

#include "elfbad.h"

static struct elfbad {
	int rc;	/* 0: free */
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtim;
} elfbad[ELFBAD_SLOTS];
static unsigned int elfbad_next;

static struct elfbad *
elfbad_lookup(const struct stat *st)
{
	struct elfbad *b;
	size_t i;

	for (i = 0; i < ELFBAD_SLOTS; i++) {
		b = &elfbad[i];
		if (b->rc != 0 && b->dev == st->st_dev &&
		    b->ino == st->st_ino && b->size == st->st_size &&
		    b->mtim.tv_sec == st->st_mtim.tv_sec &&
		    b->mtim.tv_nsec == st->st_mtim.tv_nsec)
			return (b);
	}
	return (NULL);
}

int
elfbad_find(const struct stat *st)
{
	struct elfbad *b = elfbad_lookup(st);

	return (b != NULL ? b->rc : 0);
}

int
elfbad_mark(const struct stat *st, int rc)
{
	struct elfbad *b;

	if (rc == 0)
		return (0);
	if ((b = elfbad_lookup(st)) != NULL) {
		b->rc = rc;
		return (0);
	}
	b = &elfbad[elfbad_next++ % ELFBAD_SLOTS];
	b->rc = rc;
	b->dev = st->st_dev;
	b->ino = st->st_ino;
	b->size = st->st_size;
	b->mtim = st->st_mtim;
	return (1);
}

void
elfbad_clear(void)
{
	memset(elfbad, 0, sizeof(elfbad));
	elfbad_next = 0;
}
