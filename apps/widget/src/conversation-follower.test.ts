import { describe, expect, it } from 'vitest';
import { handoffBar, modeOf } from './conversation-follower.ts';
import { translator } from './i18n.ts';

const t = translator('en');

describe('handoffBar', () => {
  it('offers the button only while the model answers and the agent allows it', () => {
    expect(handoffBar('bot', null, true, t)).toEqual({ status: '', button: true });
    expect(handoffBar('resolved', null, true, t)).toEqual({ status: '', button: true });
    expect(handoffBar('bot', null, false, t)).toEqual({ status: '', button: false });
  });
  it('says a person is being asked for, then who answers', () => {
    expect(handoffBar('pending_human', null, true, t)).toEqual({
      status: 'Waiting for a person from the team…',
      button: false,
    });
    expect(handoffBar('human', 'Ana', true, t)).toEqual({
      status: 'You are chatting with Ana from the team.',
      button: false,
    });
    expect(handoffBar('human', null, true, t)).toEqual({ status: '', button: false });
  });
});

describe('modeOf', () => {
  it('accepts the four modes only', () => {
    expect(['bot', 'pending_human', 'human', 'resolved', 'x', null, 1].map(modeOf)).toEqual([
      'bot',
      'pending_human',
      'human',
      'resolved',
      undefined,
      undefined,
      undefined,
    ]);
  });
});
