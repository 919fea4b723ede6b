/*
 * The files the ELF reader gave up on: see langelfbad.h.
 */
#include "config.h"

#include <string.h>

#include "langelfbad.h"

static struct langelfbad {
	int		 rc;		/* 0: free */
	dev_t		 dev;
	ino_t		 ino;
	off_t		 size;
	struct timespec	 mtim;
} langelfbad[LANGELFBAD_SLOTS];
static unsigned int	 langelfbad_next;

static struct langelfbad *
langelfbad_lookup(const struct stat *st)
{
	struct langelfbad	*b;
	size_t			 i;

	for (i = 0; i < LANGELFBAD_SLOTS; i++) {
		b = &langelfbad[i];
		if (b->rc != 0 && b->dev == st->st_dev &&
		    b->ino == st->st_ino && b->size == st->st_size &&
		    b->mtim.tv_sec == st->st_mtim.tv_sec &&
		    b->mtim.tv_nsec == st->st_mtim.tv_nsec)
			return (b);
	}
	return (NULL);
}

int
langelfbad_find(const struct stat *st)
{
	struct langelfbad	*b = langelfbad_lookup(st);

	return (b != NULL ? b->rc : 0);
}

int
langelfbad_mark(const struct stat *st, int rc)
{
	struct langelfbad	*b;

	if (rc == 0)
		return (0);
	if ((b = langelfbad_lookup(st)) != NULL) {
		b->rc = rc;
		return (0);
	}
	b = &langelfbad[langelfbad_next++ % LANGELFBAD_SLOTS];
	b->rc = rc;
	b->dev = st->st_dev;
	b->ino = st->st_ino;
	b->size = st->st_size;
	b->mtim = st->st_mtim;
	return (1);
}

void
langelfbad_clear(void)
{
	memset(langelfbad, 0, sizeof(langelfbad));
	langelfbad_next = 0;
}
