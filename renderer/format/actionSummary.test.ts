import { describe, expect, it } from 'vitest';
import { actionSummary, callSummary } from './actionSummary.ts';

/**
 * Real turns, as the importers make them from the samples (fixtures/samples, fixtures/mtrouter and the team's
 * /work/shared/data): the action text, tool and structured calls the turn list receives.
 */
const REAL = {
  /** pylint-dev__pylint-6386/pylint-dev__pylint-6386.traj.json, turn 20 (mini-swe-agent) */
  miniSweAgent: {"action": "THOUGHT: `Run` class has `self.verbose`.\n\n```python\nclass Run:\n    def __init__(self, args: Sequence[str], reporter: Reporter | None = None, exit: bool = True) -> None:\n        self._rcfile: str | None = None\n        self._output: str | None = None\n        self._plugins: list[str] = []\n        self.verbose: bool = False\n        # ...\n        args = _preprocess_options(self, args)\n        # ...\n        self.linter = PyLinter(\n            linter, args, reporter, config_file=self._rcfile, verbose_mode=self.verbose\n        )\n```\n\nSo `_preprocess_options` modifies `self.verbose`. Then `PyLinter` is initialized with `verbose_mode=self.verbose`.\n\nIf `argparse` parses `-v`, it happens inside `PyLinter.load_command_line_configuration` (or similar), which happens AFTER `PyLinter` initialization?\n\nActually, `Run` initializes `PyLinter`.\n\n```python\n        self.linter.load_command_line_configuration(args)\n```\n\nIf `argparse` sets `verbose` in the config namespace, `PyLinter` might pick it up if it checks the config.\n\nLet's check `pylint/lint/pylinter.py` to see how it uses `verbose`.\n\n```bash\ngrep -r \"verbose\" pylint/lint/pylinter.py\n```", "tool": "bash", "action_type": "tool", "tool_calls": []},
  /** astropy__astropy-7166/astropy__astropy-7166.traj.json, turn 0 (mini-swe-agent) */
  miniSweAgentFirst: {"action": "THOUGHT: I need to locate the `InheritDocstrings` metaclass in the codebase. I'll start by listing the files to get an idea of the project structure, and then I'll search for the string `InheritDocstrings`.\n\n```bash\nls -R && grep -r \"class InheritDocstrings\" .\n```", "tool": "bash", "action_type": "tool", "tool_calls": []},
  /** 66f2a7c9d0e14b3a8c5d6e70/66f2a7c9d0e14b3a8c5d6e70.traj.json, turn 0 (mini-swe-agent) */
  mtrouterHleJson: {"action": "Energy conservation: m g L/2 = (1/2)(m L^2/3) omega^2, so omega = sqrt(3 g / L).\n\n<tool_call>{\"name\": \"python\", \"arguments\": {\"code\": \"import math\\nL = 1.2\\ng = 9.81\\nprint(math.sqrt(3 * g / L))\"}}</tool_call>", "tool": "python", "action_type": "tool", "tool_calls": []},
  /** 671f0b9e3c2d8a4e5b6f7a18_run2/671f0b9e3c2d8a4e5b6f7a18_run2.traj.json, turn 0 (mini-swe-agent) */
  mtrouterHleXml: {"action": "I will search for a grammar reference.\n\n<tool_call>\n<search>\n  <query>Latin preposition sine governs which case</query>\n</search>\n</tool_call>", "tool": "search", "action_type": "tool", "tool_calls": []},
  /** spotter/8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl, turn 2 (claude-code) */
  claudeCode: {"action": "bash: bd update spotter-fum.1 --status in_progress\nRead /home/USER/projects/spotter-worktrees/spotter-fum/lib/spotter/services/transcript_renderer.ex\nRead /home/USER/projects/spotter-worktrees/spotter-fum/lib/spotter/transcripts/jsonl_parser.ex", "tool": "bash", "action_type": "tool", "tool_calls": [{"name": "Bash", "input": "{\"command\":\"bd update spotter-fum.1 --status in_progress\",\"description\":\"Claim spotter-fum.1\"}", "is_error": false}, {"name": "Read", "input": "{\"file_path\":\"/home/USER/projects/spotter-worktrees/spotter-fum/lib/spotter/services/transcript_renderer.ex\"}"}, {"name": "Read", "input": "{\"file_path\":\"/home/USER/projects/spotter-worktrees/spotter-fum/lib/spotter/transcripts/jsonl_parser.ex\"}"}]},
  /** codex/vct-codex.jsonl, turn 0 (codex) */
  codexPlan: {"action": "update_plan({\"plan\":[{\"status\":\"in_progress\",\"step\":\"Scan repo for go.mod and version strings\"},{\"status\":\"pending\",\"step\":\"Update go.mod to go 1.24\"},{\"status\":\"pending\",\"step\":\"Set .python-version to 3.10\"},{\"s…)", "tool": "plan", "action_type": "tool", "tool_calls": [{"name": "update_plan", "input": "{\"plan\":[{\"status\":\"in_progress\",\"step\":\"Scan repo for go.mod and version strings\"},{\"status\":\"pending\",\"step\":\"Update go.mod to go 1.24\"},{\"status\":\"pending\",\"step\":\"Set .python-version to 3.10\"},{\"status\":\"pending\",\"step\":\"Find latest Go version online\"},{\"status\":\"pending\",\"step\":\"Add zh-TW and zh-CN markdown notes\"},{\"status\":\"pending\",\"step\":\"Delete TODO.md\"}]}"}]},
  /** codex/vct-codex.jsonl, turn 1 (codex) */
  codexShell: {"action": "bash: ls -la", "tool": "bash", "action_type": "tool", "tool_calls": [{"name": "shell", "input": "{\"command\":[\"bash\",\"-lc\",\"ls -la\"]}", "is_error": false}]},
  /** gemini-cli/vct-gemini.jsonl, turn 0 (gemini-cli) */
  geminiCli: {"action": "update_topic({\"strategic_intent\":\"正在進行專案研究以產生 GEMINI.md 檔案。\",\"summary\":\"我將開始分析專案結構、讀取 README、pyproject.toml 和 Makefile 等關鍵檔案，以了解專案的目的、技術棧、建置方式和開發規範，最終產生一個全方面的 GEMINI.md 文件供未來使用。\",\"title\":\"產生專案指令文件 (GEMINI.md)\"})\nRead README.md\nRead pyproject.toml\nRead CLAUDE.md\nRead Makefile", "tool": "update_topic", "action_type": "tool", "tool_calls": [{"name": "update_topic", "input": "{\"strategic_intent\":\"正在進行專案研究以產生 GEMINI.md 檔案。\",\"summary\":\"我將開始分析專案結構、讀取 README、pyproject.toml 和 Makefile 等關鍵檔案，以了解專案的目的、技術棧、建置方式和開發規範，最終產生一個全方面的 GEMINI.md 文件供未來使用。\",\"title\":\"產生專案指令文件 (GEMINI.md)\"}", "is_error": false}, {"name": "read_file", "input": "{\"file_path\":\"README.md\"}", "is_error": false}, {"name": "read_file", "input": "{\"file_path\":\"pyproject.toml\"}", "is_error": false}, {"name": "read_file", "input": "{\"file_path\":\"CLAUDE.md\"}", "is_error": false}, {"name": "read_file", "input": "{\"file_path\":\"Makefile\"}", "is_error": false}]},
  /** copilot-cli/vct-copilot.jsonl, turn 0 (copilot-cli) */
  copilotCli: {"action": "report_intent: Investigating Rust doc tools\nview /home/wei/repo/VibeCodingTracker\nview /home/wei/repo/VibeCodingTracker/Cargo.toml\nweb_search: best Rust documentation generation tools 2024 2025 alternatives to rustdoc mdBook", "tool": "read", "action_type": "tool", "tool_calls": [{"name": "report_intent", "input": "{\"intent\":\"Investigating Rust doc tools\"}", "is_error": false}, {"name": "view", "input": "{\"path\":\"/home/wei/repo/VibeCodingTracker\"}", "is_error": false}, {"name": "view", "input": "{\"path\":\"/home/wei/repo/VibeCodingTracker/Cargo.toml\"}", "is_error": false}, {"name": "web_search", "input": "{\"query\":\"best Rust documentation generation tools 2024 2025 alternatives to rustdoc mdBook\"}", "is_error": false}]},
  /** openhands/basic_gui_mode.json, turn 0 (openhands) */
  openHands: {"action": "bash: mkdir -p /workspace/todo-app", "tool": "bash", "action_type": "tool", "tool_calls": [{"name": "execute_bash", "input": "{\"command\": \"mkdir -p /workspace/todo-app\"}", "is_error": false}]},
  /** inspect/2025-05-12T20-27-36-04-00_browser.json, turn 0 (inspect) */
  inspect: {"action": "web_browser_go({\"url\":\"https://www.aisi.gov.uk/\"})", "tool": "web_browser_go", "action_type": "tool", "tool_calls": []},
  /** constructed/otlp-agent-tools.json, turn 0 (otel) */
  otel: {"action": "get_weather({\"location\": \"Paris\", \"when\": \"afternoon\"})", "tool": "get_weather", "action_type": "tool", "tool_calls": []},
  /** aider/chat-history.md, turn 0 (aider) */
  aider: {"action": "edit aider/utils.py (commit fd43cd4)", "tool": "edit", "action_type": "edit", "tool_calls": []},
  /** gpt4__swe-bench-dev-easy_first_only__default__t-0.00__p-0.95__c-3.00__install-1/pydicom__pydicom-1458.traj, turn 1 (swe-agent) */
  sweAgentEdit: {"action": "edit 1:1\nimport numpy as np\nfrom pydicom.dataset import Dataset, FileMetaDataset\n\nds = Dataset()\nds.file_meta = FileMetaDataset()\nds.file_meta.TransferSyntaxUID = '1.2.840.10008.1.2.1'\n\nds.BitsAllocated = 32\nds.SamplesPerPixel = 1\nds.Rows = 5\nds.Columns = 5\nds.PhotometricInterpretation = 'MONOCHROME2'\n\npixel_array = np.zeros((ds.Rows, ds.Columns), dtype=np.float32)\nds.FloatPixelData = pixel_array.flatten().tobytes()\n\nresult = np.array_equal(ds.pixel_array, pixel_array)\nprint(\"Script completed successfully, no errors. Result:\", result)\nend_of_edit", "tool": "edit", "action_type": "tool", "tool_calls": []},
  /** gpt4__swe-agent-test-repo__default_from_url__t-0.00__p-0.95__c-3.00__install-1/6e44b9__sweagenttestrepo-1c2844.traj, turn 0 (swe-agent) */
  sweAgent: {"action": "find_file missing_colon.py", "tool": "find_file", "action_type": "tool", "tool_calls": []},
  /** uno/case1-hyperbola-decomp-repair.xml, turn 0 (uno) */
  uno: {"action": "solve directly assuming all three constraints hold simultaneously.", "tool": "symbolic_math", "action_type": "tool", "tool_calls": []},
  /** openagents-tbench-regex-log/trajectory.json, turn 1 (atif) */
  atif: {"action": "Write /app/regex.txt\nbash: pwd && ls -la /\nbash: sudo mkdir -p /app && sudo chmod 777 /app\nbash: ls -ld /tmp/tmp.Gtrekx29jH && touch /tmp/tmp.Gtrekx29jH/test.txt && echo \"Writable\"", "tool": "edit", "action_type": "tool", "tool_calls": [{"name": "Write", "input": "{\"content\":\"^.*\\\\b(?:0|[1-9]|[1-9][0-9]|1[0-9]{2}|2[0-4][0-9]|25[0-5])\\\\.(?:0|[1-9]|[1-9][0-9]|1[0-9]{2}|2[0-4][0-9]|25[0-5])\\\\.(?:0|[1-9]|[1-9][0-9]|1[0-9]{2}|2[0-4][0-9]|25[0-5])\\\\.(?:0|[1-9]|[1-9][0-9]|1[0-9]{2}|2[0-4][0-9]|25[0-5])\\\\b.*\\\\b([0-9]{4}-(?:01|03|05|07|08|10|12)-(?:0[1-9]|[12][0-9]|3[01])|[0-9]{4}-(?:04|06|09|11)-(?:0[1-9]|[12][0-9]|30)|[0-9]{4}-02-(?:0[1-9]|[12][0-9]))\\\\b(?!.*\\\\b(?:[0-9]{4}-(?:01|03|05|07|08|10|12)-(?:0[1-9]|[12][0-9]|3[01])|[0-9]{4}-(?:04|06|09|11)-(?:0[1-9]|[12][0-9]|30)|[0-9]{4}-02-(?:0[1-9]|[12][0-9]))\\\\b)$\\n\",\"file_path\":\"/app/regex.txt\"}", "is_error": true}, {"name": "Bash", "input": "{\"command\":\"pwd && ls -la /\",\"description\":\"Check current directory and /app permissions\"}", "is_error": false}, {"name": "Bash", "input": "{\"command\":\"sudo mkdir -p /app && sudo chmod 777 /app\",\"description\":\"Create /app directory with write permissions\"}", "is_error": true}, {"name": "Bash", "input": "{\"command\":\"ls -ld /tmp/tmp.Gtrekx29jH && touch /tmp/tmp.Gtrekx29jH/test.txt && echo \\\"Writable\\\"\",\"description\":\"Test if current temp directory is writable\"}", "is_error": false}]},
  /** psf__requests-2317/psf__requests-2317.traj.json, turn 11 (mini-swe-agent) */
  miniSweAgentNoCommand: {"action": "THOUGHT: I need to see more lines.\n\n```bash\nsed -n '/def to_native_string/,/return/p' requests/utils.py | head -n 20\n```\n\nWait, `sed` command above stopped at the first `return`. I should just read the function.\n\n```bash\ngrep -n \"def to_native_string\" requests/utils.py\n```", "tool": null, "action_type": "message", "tool_calls": []},
  /** use-thermometer_var2_run0/use-thermometer_var2_run0.traj.json, turn 0 (mini-swe-agent) */
  mtrouterScienceWorld: {"action": "THOUGHT: Find the thermometer and the substance.\n\n```text\nlook around\n```", "tool": "observation", "action_type": "tool", "tool_calls": []},
};

const line = (turn: keyof typeof REAL) => actionSummary(REAL[turn]);

describe('turn summary: text agents show the command that ran', () => {
  it('mini-swe-agent: the one ```bash block, not a code block of the reasoning before it', () => {
    expect(REAL.miniSweAgent.action).toContain('```python\nclass Run:');
    expect(line('miniSweAgent').text).toBe('grep -r "verbose" pylint/lint/pylinter.py');
    expect(line('miniSweAgentFirst').text).toBe('ls -R && grep -r "class InheritDocstrings" .');
  });
  it('mini-swe-agent: a reply with two ```bash blocks ran nothing, so its words are shown', () => {
    expect(line('miniSweAgentNoCommand').text).toBe('I need to see more lines.');
  });
  it('MTRouter ScienceWorld: the ```text command; HLE: the tool call, JSON or XML', () => {
    expect(line('mtrouterScienceWorld').text).toBe('look around');
    expect(line('mtrouterHleJson').text).toBe('python: L = 1.2 …');
    expect(line('mtrouterHleXml').text).toBe('search: Latin preposition sine governs which case');
  });
  it('SWE-agent: the command, first line only for an edit with its new text', () => {
    expect(line('sweAgent').text).toBe('find_file missing_colon.py');
    expect(line('sweAgentEdit').text).toBe('edit 1:1 …');
  });
  it('Aider and Uno: the edit or the step as logged', () => {
    expect(line('aider').text).toBe('edit aider/utils.py (commit fd43cd4)');
    expect(line('uno').text).toBe('solve directly assuming all three constraints hold simultaneously.');
  });
  it('Inspect and OpenTelemetry: name({json}) read as the call and its key argument', () => {
    expect(line('inspect').text).toBe('web_browser_go: https://www.aisi.gov.uk/');
    expect(line('otel').text).toBe('get_weather: Paris');
  });
});

describe('turn summary: tool-calling agents show the first call and how many more', () => {
  it('Claude Code: the importer\'s line, the count of further calls, all of them in the tooltip', () => {
    const s = line('claudeCode');
    expect(s.text).toBe('bash: bd update spotter-fum.1 --status in_progress');
    expect(s.more).toBe(2);
    expect(s.full.split('\n')).toEqual([
      'bash: bd update spotter-fum.1 --status in_progress',
      'Read …/spotter/services/transcript_renderer.ex',
      'Read …/spotter/transcripts/jsonl_parser.ex',
    ]);
  });
  it('Codex: the shell command; a plan update by its step under way', () => {
    expect(line('codexShell').text).toBe('bash: ls -la');
    const script = { action: 'bash: set -e\necho hi', tool: 'bash', action_type: 'tool', tool_calls: [{ id: null, name: 'shell', input: '{"command":["bash","-lc","set -e\\necho hi"]}', result: null, is_error: null }] };
    expect(actionSummary(script).text).toBe('bash: set -e …');
    expect(line('codexPlan').text).toBe('update_plan: Scan repo for go.mod and version strings');
  });
  it('Gemini CLI and Copilot CLI: a raw-argument call by its key argument', () => {
    expect(line('geminiCli')).toMatchObject({ text: 'update_topic: 產生專案指令文件 (GEMINI.md)', more: 4 });
    expect(line('copilotCli')).toMatchObject({ text: 'report_intent: Investigating Rust doc tools', more: 3 });
  });
  it('OpenHands and ATIF', () => {
    expect(line('openHands').text).toBe('bash: mkdir -p /workspace/todo-app');
    expect(line('atif')).toMatchObject({ text: 'Write /app/regex.txt', more: 3 });
  });
});

describe('call summary', () => {
  it('reads paths, editor sub-commands, command arrays and plain values', () => {
    expect(callSummary('Edit', '{"file_path":"src/a.ts","old_string":"a","new_string":"b"}')).toBe('Edit src/a.ts');
    expect(callSummary('Bash', '{"command":"npm test","description":"run the tests"}')).toBe('Bash: npm test');
    expect(callSummary('str_replace_editor', '{"command":"create","path":"/w/app.js","file_text":"x"}')).toBe('str_replace_editor create /w/app.js');
    expect(callSummary('shell', '{"command":["bash","-lc","ls -la"]}')).toBe('shell: ls -la');
    expect(callSummary('Grep', '{"pattern":"TODO","path":"src"}')).toBe('Grep: TODO');
    expect(callSummary('web_browser_click', '{"element_id":151}')).toBe('web_browser_click: 151');
    expect(callSummary('EnterPlanMode', '{}')).toBe('EnterPlanMode');
    expect(callSummary('ExitPlanMode', '{"plan":"# Plan: Enrich TranscriptRenderer\\n\\n## Steps"}')).toBe('ExitPlanMode: Plan: Enrich TranscriptRenderer …');
    expect(callSummary('exec', 'await tools.apply_patch(patchText);')).toBe('exec: await tools.apply_patch(patchText);');
  });
  it('keeps the end of a long path, where the file name is', () => {
    expect(callSummary('Read', '{"file_path":"/home/USER/projects/spotter-worktrees/spotter-fum/lib/spotter/services/tmux.ex"}')).toBe(
      'Read …/spotter/services/tmux.ex',
    );
  });
});

describe('turn summary: fallbacks', () => {
  it('a reply with no command shows its first words without a THOUGHT label; no text shows the tool', () => {
    expect(actionSummary({ action: 'THOUGHT: I will submit now', tool: null, action_type: 'message' }).text).toBe('I will submit now');
    expect(actionSummary({ action: null, tool: 'web_search', action_type: 'tool' }).text).toBe('web_search');
    expect(actionSummary({ action: '', tool: null, action_type: 'message' }).text).toBe('message');
  });
});
