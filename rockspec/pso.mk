# Makefile of the LuaRocks build (rockspec/psoc-0.1.0-1.rockspec, "make"
# backend): pso.so from the same sources as premake5.lua's `pso` project.
# LuaRocks passes CC, CFLAGS, LIBFLAG, LUA_INCDIR, DIRECTX_INCDIR (build)
# and INST_LIBDIR (install). Objects go to build/rock/, out of the way of
# the premake builds.
CC ?= cc
CFLAGS ?= -O2 -fPIC
LIBFLAG ?= -shared
LUA_INCDIR ?= /usr/include/lua5.4
DIRECTX_INCDIR ?= /usr/include
# one object folder per Lua: the objects depend on its headers
OUT := build/rock/$(notdir $(LUA_INCDIR))

SRC := $(wildcard bindings/lua/*.c) $(wildcard src/*.c)
OBJ := $(patsubst %.c,$(OUT)/%.o,$(SRC))
FLAGS := -std=c11 -Wall -Wextra -D_POSIX_C_SOURCE=200809L -DNDEBUG \
	-Isrc -Ibindings/lua -I$(DIRECTX_INCDIR) -I$(DIRECTX_INCDIR)/wsl/stubs -I$(LUA_INCDIR)

.PHONY: all install

all: $(OUT)/pso.so

$(OUT)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(FLAGS) -c -o $@ $<

$(OUT)/pso.so: $(OBJ)
	$(CC) $(LIBFLAG) -o $@ $(OBJ) -lm

install: $(OUT)/pso.so
	mkdir -p $(INST_LIBDIR)
	cp $(OUT)/pso.so $(INST_LIBDIR)/pso.so
