"""An agent app on toolcat's front door: python examples/app.py CATALOG MODEL_URL QUESTION."""

import json
import sys
import urllib.request

import toolcat

catalog = toolcat.load(sys.argv[1])  # every problem at once: toolcat.CatalogError
openai = toolcat.provider("openai")  # or "anthropic", "gemini", "openai-responses", "mcp"
tools = openai.tools(catalog).tools
messages = [{"role": "user", "content": sys.argv[3]}]
with toolcat.Executor(catalog) as executor:
    while True:  # any OpenAI-compatible endpoint (an SDK client does the same)
        body = json.dumps({"model": "m", "messages": messages, "tools": tools}).encode()
        post = urllib.request.Request(sys.argv[2], body, {"Content-Type": "application/json"})
        reply = json.load(urllib.request.urlopen(post))["choices"][0]["message"]
        messages.append(reply)
        if not reply.get("tool_calls"):
            break
        results = executor.execute_many(openai.parse_calls(reply))  # concurrent, validated
        messages += [openai.format_result(result) for result in results]
print(reply["content"])
