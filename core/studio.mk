# core: build rules (automake fragment, included from the top Makefile.am).
