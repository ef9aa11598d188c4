-- A second real client for `cudnnlint server` (issue 15): Neovim's own LSP client, headless.
-- Run by tests/e2e/test_server_neovim.py as
--   nvim --headless -u NONE -i NONE -c "luafile tests/e2e/nvim_client.lua" MODEL.py
-- with CUDNNLINT_BINARY (the binary), CUDNNLINT_ROOT (the workspace) and CUDNNLINT_OUT (a file
-- for what it saw) in the environment. It attaches the server to the buffer, records the
-- diagnostics, hovers on the first one, edits the line through the buffer (Neovim sends an
-- incremental didChange), waits for the diagnostics to clear, and stops the server. It quits
-- with status 0 when every step happened, 1 otherwise; the test reads CUDNNLINT_OUT either way.
-- Written for Neovim 0.7 (Debian 12): vim.lsp.start_client, vim.diagnostic.

local out = {}
local function say(line) table.insert(out, line) end
local function finish(ok)
  vim.fn.writefile(out, os.getenv("CUDNNLINT_OUT"))
  vim.cmd(ok and "qall!" or "cquit! 1")
end

local bufnr = vim.api.nvim_get_current_buf()
local client_id = vim.lsp.start_client({
  name = "cudnnlint",
  cmd = { os.getenv("CUDNNLINT_BINARY"), "server" },
  root_dir = os.getenv("CUDNNLINT_ROOT"),
  on_stderr = function(_, data) if data then say("stderr " .. data) end end,
})
if not client_id then
  say("error: the server did not start")
  return finish(false)
end
vim.lsp.buf_attach_client(bufnr, client_id)

-- 1. The diagnostics of the opened file.
if not vim.wait(60000, function() return #vim.diagnostic.get(bufnr) > 0 end, 20) then
  say("error: no diagnostics within 60 s")
  return finish(false)
end
local first
for _, d in ipairs(vim.diagnostic.get(bufnr)) do
  local lsp = (d.user_data and d.user_data.lsp) or {}
  say(string.format("diagnostic %d:%d %s %s", d.lnum, d.col, lsp.code or d.code or "?", d.message))
  first = first or d
end

-- 2. A hover on it: the KB entry.
local client = vim.lsp.get_client_by_id(client_id)
local hover = client.request_sync("textDocument/hover", {
  textDocument = { uri = vim.uri_from_bufnr(bufnr) },
  position = { line = first.lnum, character = first.col },
}, 30000, bufnr)
if hover and hover.result and hover.result.contents then
  say("hover " .. vim.split(hover.result.contents.value, "\n")[1])
else
  say("error: no hover")
end

-- 3. The line edited in the buffer (eps=0 -> eps=1e-5): the diagnostics clear.
local line = vim.api.nvim_buf_get_lines(bufnr, first.lnum, first.lnum + 1, false)[1]
local fixed = line:gsub("eps=0", "eps=1e-5", 1)
vim.api.nvim_buf_set_lines(bufnr, first.lnum, first.lnum + 1, false, { fixed })
if vim.wait(60000, function() return #vim.diagnostic.get(bufnr) == 0 end, 20) then
  say("cleared")
else
  say("error: the diagnostics did not clear")
  return finish(false)
end

-- 4. Shutdown and exit.
vim.lsp.stop_client(client_id)
local stopped = vim.wait(30000, function() return vim.lsp.get_client_by_id(client_id) == nil end, 20)
say(stopped and "stopped" or "error: the server did not stop")
finish(stopped)
