// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "model/contract.h"
#include "output/doc.h"

void doc_members(struct json *j)
{
	json_kv_u64(j, "format", JSON_FORMAT);
	json_kv_str(j, "version", PPWATCH_VERSION);
}

void doc_open(struct json *j)
{
	json_obj_open(j);
	doc_members(j);
}
