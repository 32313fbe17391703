// `deno task bench`: every benchmark in one run. Add a bench/<name>.ts exporting a function and call it here.
import { benchMcp } from "./mcp.ts";
import { benchGantt } from "./gantt.ts";
import { benchContactsExport } from "./contacts_export.ts";
import { benchExportStall } from "./export_stall.ts";
import { benchLoad } from "./load.ts";
import { benchServeFront } from "./serve_front.ts";

await benchMcp();
await benchGantt();
await benchContactsExport();
await benchExportStall();
await benchLoad();
await benchServeFront();
