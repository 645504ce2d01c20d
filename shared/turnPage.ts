/**
 * Turns an answer carries in full (`getEpisode`, `getTurns`, the debugger's `episodePolicyChoices`): past this many an
 * episode comes as an outline of every turn and its details a page at a time. An agent that ran for days has a million
 * turns: their details in one answer were gigabytes and took the server down (issue 38).
 */
export const TURN_PAGE = 2_000;
