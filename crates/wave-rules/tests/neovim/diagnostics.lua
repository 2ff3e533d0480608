-- Run by tests/neovim.rs in `nvim --headless --clean`: Neovim's own LSP
-- client (vim.lsp.start_client, Neovim 0.7 and later) against
-- `wave-rules lsp`. It opens a broken rule, waits for its diagnostics,
-- applies the server's quick fix through the client, waits for the
-- diagnostics to clear, and writes what it saw to $WAVE_OUT, one line each.
local out = assert(io.open(os.getenv('WAVE_OUT'), 'w'))
local function say(line)
  out:write(line .. '\n')
  out:flush()
end

local ok, err = pcall(function()
  vim.cmd('edit ' .. vim.fn.fnameescape(os.getenv('WAVE_FILE')))
  local client_id = vim.lsp.start_client({
    name = 'wave-rules',
    cmd = { os.getenv('WAVE_BIN'), 'lsp', '--workdir', os.getenv('WAVE_WORKDIR'), '--home', os.getenv('WAVE_HOME') },
    root_dir = os.getenv('WAVE_WORKDIR'),
  })
  assert(client_id, 'the client did not start')
  vim.lsp.buf_attach_client(0, client_id)

  local got = vim.wait(20000, function() return #vim.diagnostic.get(0) > 0 end, 50)
  say('diagnostics ' .. tostring(got))
  for _, d in ipairs(vim.diagnostic.get(0)) do
    local code = d.code or (d.user_data and d.user_data.lsp and d.user_data.lsp.code)
    say(string.format('diagnostic %d:%d-%d %s %s', d.lnum, d.col, d.end_col or -1, tostring(code), d.message))
  end

  -- The quick fix, as a user picks it: the server's code action, applied
  -- by the client.
  local d = vim.diagnostic.get(0)[1]
  local params = {
    textDocument = { uri = vim.uri_from_bufnr(0) },
    range = { start = { line = d.lnum, character = d.col }, ['end'] = { line = d.lnum, character = d.col } },
    context = { diagnostics = {} },
  }
  local answers = vim.lsp.buf_request_sync(0, 'textDocument/codeAction', params, 20000) or {}
  local applied = false
  for _, answer in pairs(answers) do
    for _, action in ipairs(answer.result or {}) do
      if not applied and action.edit then
        say('action ' .. action.title)
        vim.lsp.util.apply_workspace_edit(action.edit, 'utf-16')
        applied = true
      end
    end
  end
  say('line2 ' .. vim.api.nvim_buf_get_lines(0, 1, 2, false)[1])
  local cleared = vim.wait(20000, function() return #vim.diagnostic.get(0) == 0 end, 50)
  say('cleared ' .. tostring(cleared))
  vim.lsp.stop_client(client_id)
end)
if not ok then say('error ' .. tostring(err)) end
out:close()
vim.cmd('qa!')
