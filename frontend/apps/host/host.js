// A minimal MCP Apps host for the tests (tests/test_apps_browser.py): the extension's own
// AppBridge and the official MCP client, connected to the bridge's endpoint over HTTP. It
// renders a tool's page as real hosts do: reads the tool's _meta.ui.resourceUri with
// resources/read, puts the HTML in a sandboxed iframe (srcdoc, an opaque origin), connects the
// AppBridge to it over postMessage, sends the tool's input and result, and forwards the
// page's tool calls to the server. Not shipped: built into tests/apps_host/host.js.
import { AppBridge, PostMessageTransport } from "@modelcontextprotocol/ext-apps/app-bridge";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";

const log = (window.hostLog = []);

window.openApp = async ({ endpoint, tool: name, arguments: args, headers, theme, locale }) => {
  const client = new Client({ name: "apps-test-host", version: "1.0.0" }, {
    capabilities: { extensions: { "io.modelcontextprotocol/ui": { mimeTypes: ["text/html;profile=mcp-app"] } } },
  });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(endpoint, location.href), { requestInit: { headers: headers || {} } }),
  );
  const { tools } = await client.listTools();
  const tool = tools.find((candidate) => candidate.name === name);
  const uri = tool && tool._meta && tool._meta.ui && tool._meta.ui.resourceUri;
  log.push({ listed: name, uri });
  if (!uri) throw new Error(`${name} names no page`);
  const { contents } = await client.readResource({ uri });
  log.push({ read: uri, mimeType: contents[0].mimeType, csp: contents[0]._meta?.ui?.csp });

  const frame = document.createElement("iframe");
  frame.setAttribute("sandbox", "allow-scripts allow-forms");
  frame.title = name;
  document.getElementById("host").replaceChildren(frame);
  const dark = theme === "dark";
  const bridge = new AppBridge(client, { name: "apps-test-host", version: "1.0.0" }, { serverTools: {} }, {
    hostContext: {
      theme: dark ? "dark" : "light",
      locale: locale || "en",
      styles: {
        variables: {
          "--color-background-primary": dark ? "#1e1e22" : "#ffffff",
          "--color-text-primary": dark ? "#ececf1" : "#1f2328",
          "--color-ring-primary": "#7c3aed",
        },
      },
      toolInfo: { tool },
    },
  });
  bridge.onsizechange = ({ height }) => {
    if (height) frame.style.height = `${Math.ceil(height)}px`;
  };
  bridge.oninitialized = async () => {
    await bridge.sendToolInput({ arguments: args || {} });
    const result = await client.callTool({ name, arguments: args || {} });
    await bridge.sendToolResult(result);
    log.push({ sent: name, isError: !!result.isError });
  };
  await bridge.connect(new PostMessageTransport(frame.contentWindow, frame.contentWindow));
  frame.srcdoc = contents[0].text;
  return uri;
};
