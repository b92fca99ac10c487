/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The rules file's key tables (model/rules_schema.c), for the parser (model/rules.c). */
#ifndef __PPWATCH_MODEL_RULES_SCHEMA_H
#define __PPWATCH_MODEL_RULES_SCHEMA_H

#include "model/rules.h"

/* keys in one section at most (the parser keeps where it saw each) */
#define RULES_MAX_KEYS 16

/* each ends with a { NULL } entry */
extern const struct keydef file_keys[], rule_keys[], match_keys[];
/* what a value of type t looks like, for error messages ("a duration such as 30s") */
const char *vtype_expect(enum vtype t);
/* the type's short name, for the key list */
const char *vtype_name(enum vtype t);

#endif /* __PPWATCH_MODEL_RULES_SCHEMA_H */
