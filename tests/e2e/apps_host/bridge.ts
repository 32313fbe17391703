// The test host's browser side: the official AppBridge of @modelcontextprotocol/ext-apps, bundled for the page.
import { AppBridge, PostMessageTransport } from "@modelcontextprotocol/ext-apps/app-bridge";

Object.assign(globalThis, { AppBridge, PostMessageTransport });
