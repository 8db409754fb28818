// A Bash guard written with @mizunashi_mana/claude-code-hook-sdk, as its README shows one.
import { runHook } from '@mizunashi_mana/claude-code-hook-sdk';

void runHook({
  preToolUseHandler: async (input) => {
    const command = String(input.tool_input.command ?? '');
    if (input.tool_name === 'Bash' && command.includes('rm -rf')) {
      return { decision: 'block', reason: 'sdk guard: rm -rf is refused' };
    }
    return {};
  },
});
