// Conformance-suite helper: forwards each request to Portico unchanged (Host and Origin as the client sent them,
// which Deno's fetch would rewrite) and adds the x-api-key header the suite's client cannot send.
// PORTICO_KEY=pak_… TARGET=http://127.0.0.1:8791 PROXY_PORT=8792 deno run --allow-net --allow-env bench/conformance/proxy.ts
import http from "node:http";

const target = new URL(Deno.env.get("TARGET") ?? "http://127.0.0.1:8791");
const key = Deno.env.get("PORTICO_KEY");
if (!key) throw new Error("PORTICO_KEY is not set");
const port = Number(Deno.env.get("PROXY_PORT") ?? "8792");

http.createServer((req, res) => {
  const upstream = http.request({
    host: target.hostname,
    port: Number(target.port),
    method: req.method,
    path: req.url,
    headers: { ...req.headers, "x-api-key": key },
  }, (answer) => {
    res.writeHead(answer.statusCode ?? 502, answer.headers);
    answer.pipe(res);
  });
  upstream.on("error", () => {
    res.writeHead(502);
    res.end();
  });
  req.pipe(upstream);
}).listen(port, "127.0.0.1", () => console.log(`proxy on 127.0.0.1:${port} -> ${target.origin}`));
