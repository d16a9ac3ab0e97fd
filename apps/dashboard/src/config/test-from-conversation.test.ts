import type { Message } from '@agentry/contract/schemas';
import { describe, expect, it } from 'vitest';
import { conversationToTest, testNameFrom } from './test-from-conversation.ts';

let seq = 0;
function message(role: Message['role'], content: Message['content'], author: Message['author'] = null): Message {
  seq++;
  return {
    id: `m${seq}`,
    object: 'message',
    seq,
    role,
    run_id: role === 'user' ? null : 'r1',
    content,
    citations: [],
    author,
    created_at: '2026-01-01T00:00:00Z',
  };
}
const user = (text: string) => message('user', [{ type: 'text', text }]);
const call = (id: string, name: string, args: unknown) =>
  message('assistant', [{ type: 'tool_call', id, name, arguments: args }]);
const result = (id: string, name: string, output: unknown, isError = false) =>
  message('tool', [{ type: 'tool_result', tool_call_id: id, name, output, is_error: isError }]);
const reply = (text: string) => message('assistant', [{ type: 'text', text }]);

describe('save as test: a conversation becomes a case', () => {
  it('user turns become turns; tool calls expectations of their turn and fixtures with what came back', () => {
    const messages = [
      user('Please refund order 1042, it arrived broken.'),
      call('c1', 'refund_order', { order_id: '1042' }),
      result('c1', 'refund_order', { status: 'refunded', amount: 59 }),
      reply('Sorry! Your refund is done.'),
      user('Thanks. And talk to a person?'),
      call('c2', 'handoff_to_human', { reason: 'asked' }),
      result('c2', 'handoff_to_human', { status: 'requested' }),
    ];
    expect(conversationToTest({ messages, context: {} }, { name: 'Refund', description: 'Saved' })).toEqual({
      name: 'Refund',
      description: 'Saved',
      turns: [
        {
          user: 'Please refund order 1042, it arrived broken.',
          expect: [{ type: 'tool_called', tool: 'refund_order' }],
        },
        { user: 'Thanks. And talk to a person?', expect: [{ type: 'handoff_requested' }] },
      ],
      fixtures: [{ tool: 'refund_order', output: { status: 'refunded', amount: 59 } }],
    });
  });

  it('a tool answering differently per call gets a fixture per call, told apart by its arguments', () => {
    const messages = [
      user('Status of orders 1 and 2?'),
      message('assistant', [
        { type: 'tool_call', id: 'a', name: 'order_status', arguments: { order_id: '1', verbose: true } },
        { type: 'tool_call', id: 'b', name: 'order_status', arguments: { order_id: '2', verbose: true } },
      ]),
      result('a', 'order_status', { status: 'shipped' }),
      result('b', 'order_status', { error: 'not_found' }, true),
      call('c', 'order_status', { order_id: '1', verbose: true }),
      result('c', 'order_status', { status: 'shipped' }),
    ];
    const test = conversationToTest({ messages, context: { plan: 'pro' } }, { name: 'Two orders' });
    expect(test.context).toEqual({ plan: 'pro' });
    expect(test.turns[0]!.expect).toEqual([{ type: 'tool_called', tool: 'order_status' }]);
    expect(test.fixtures).toEqual([
      {
        tool: 'order_status',
        output: { status: 'shipped' },
        when: { properties: { order_id: { const: '1' }, verbose: { const: true } }, required: ['order_id', 'verbose'] },
      },
      {
        tool: 'order_status',
        output: { error: 'not_found' },
        is_error: true,
        when: { properties: { order_id: { const: '2' }, verbose: { const: true } }, required: ['order_id', 'verbose'] },
      },
    ]);
  });

  it('a declined approval replays as declined; built-in tools get no fixture; a flow step reached is expected', () => {
    const messages = [
      user('leave request'),
      call('f', 'flow__leave', {}),
      result('f', 'flow__leave', { flow: 'leave', step: 'ask_start', status: 'active' }),
      call('k', 'search_knowledge', { query: 'leave' }),
      result('k', 'search_knowledge', { results: [] }),
      call('d', 'delete_account', {}),
      result('d', 'delete_account', { error: 'declined', message: 'A person declined' }, true),
      message('user', [{ type: 'text', text: 'a note for the bot' }], { type: 'note', user_id: null, name: 'Ann' }),
    ];
    const test = conversationToTest({ messages, context: {} }, { name: 'Leave' });
    expect(test.turns).toEqual([
      {
        user: 'leave request',
        expect: [
          { type: 'flow_step', flow: 'leave', step: 'ask_start' },
          { type: 'tool_called', tool: 'delete_account' },
        ],
      },
    ]);
    expect(test.fixtures).toEqual([{ tool: 'delete_account', decision: 'decline' }]);
  });

  it('names a case after the first message, shortened', () => {
    expect(testNameFrom([user('  Hello   there ')], 'Saved')).toBe('Hello there');
    expect(testNameFrom([], 'Saved')).toBe('Saved');
    const long = testNameFrom([user('x'.repeat(100))], 'Saved');
    expect(long).toHaveLength(60);
    expect(long.endsWith('…')).toBe(true);
  });
});
