// MCP tool create_workspace_document: a new document (markdown and/or a stored file), optionally linked to AI work.
import { z } from "zod";
import { markdownField, metadataField } from "../lib/mcp/crm_fields.ts";
import { textField, uuidField } from "../lib/mcp/fields.ts";
import { defineTool } from "../lib/mcp/tool.ts";
import {
  createDocument as create,
  DOCUMENT_KINDS,
  DOCUMENT_RELATIONSHIPS,
  DOCUMENT_SOURCES,
  MIME_TYPE,
  STORAGE_PROVIDERS,
} from "../lib/workspace/documents.ts";

/** The storage fields, shared with update_workspace_document; `tail` ends each description. */
export function storageFields(tail: string) {
  const t = tail ? ` ${tail}` : "";
  return {
    storageProvider: z.enum(STORAGE_PROVIDERS).describe(
      `Where the file is stored; required with storagePath or storageUrl.${t}`,
    ),
    storagePath: textField(`Bucket key or path of the file at the provider.${t}`, {
      min: 1,
      max: 1024,
    }),
    storageUrl: z.url({ protocol: /^https?$/, error: "must be an http or https URL" })
      .max(2048, { error: "must be at most 2048 characters" })
      .describe(
        `Link to the file (http or https); required for provider url.${t}`,
      ),
    fileSizeBytes: z.number({ error: "must be a number" }).int({ error: "must be an integer" })
      .min(0, { error: "must not be negative" }).max(Number.MAX_SAFE_INTEGER, { error: "is too large" })
      .describe(`Size of the stored file in bytes, 0 or more.${t}`),
    checksumSha256: z.string({ error: "must be a string" }).regex(/^[0-9a-f]{64}$/, {
      error: "must be 64 lower-case hex characters",
    }).describe(`SHA-256 of the stored file, 64 lower-case hex characters.${t}`),
  };
}

/** A media type, checked against MIME_TYPE by a refinement: as a JSON Schema pattern it cost ~45 tokens a tool. */
export function mimeTypeField(description: string) {
  return z.string({ error: "must be a string" }).trim()
    .refine((v) => MIME_TYPE.test(v), {
      error: "must be a media type such as text/markdown or application/pdf",
    }).describe(description);
}

const s = storageFields("");
const Input = z.strictObject({
  title: textField("The document's title.", { min: 1, max: 200 }),
  kind: z.enum(DOCUMENT_KINDS).describe(`What it is.`),
  source: z.enum(DOCUMENT_SOURCES).describe(`Where it came from. Default ai.`)
    .optional(),
  description: textField("Short description.", { max: 10000 }).optional(),
  companyId: uuidField(
    "The company it belongs to. Default: the AI activity's company when activityId is given, else the key's only company, else none.",
  ).optional(),
  mimeType: mimeTypeField(
    "Media type of the document, e.g. text/markdown or application/pdf. Default text/markdown.",
  )
    .optional(),
  contentMarkdown: markdownField("The content as markdown; at most 1 MiB of UTF-8.").optional(),
  storageProvider: s.storageProvider.optional(),
  storagePath: s.storagePath.optional(),
  storageUrl: s.storageUrl.optional(),
  fileSizeBytes: s.fileSizeBytes.optional(),
  checksumSha256: s.checksumSha256.optional(),
  activityId: uuidField("An AI activity to link the document to.").optional(),
  relationship: z.enum(DOCUMENT_RELATIONSHIPS).describe(
    `What the document is to the activity. Only with activityId; ` +
      "default output.",
  ).optional(),
  metadata: metadataField("Free-form JSON object; at most 16 KiB. Default {}.").optional(),
});

export const createWorkspaceDocument = defineTool({
  name: "create_workspace_document",
  title: "Create document",
  area: "documents",
  module: "documents",
  needsUser: true,
  variants: { A: Input },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  description:
    "Creates a workspace document (markdown and/or a stored file), optionally linked to an AI activity. Returns the document (get_workspace_document fields).",
  run: (ctx, input) => create(ctx.db, ctx.caller, input),
});
