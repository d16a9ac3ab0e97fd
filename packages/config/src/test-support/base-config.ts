/** Loosely typed on purpose: tests reshape configs into every invalid form. */
export type Loose = Record<string, any>;

/** A small valid config that tests mutate into invalid ones (a fresh copy per call). */
export function baseConfig(): Loose {
  return {
    basic_settings: { name: 'Ava', description: 'Booking assistant' },
    action_books: [{ condition: 'When someone books', action: 'Save them', tools: ['save'] }],
    tools: [
      {
        name: 'save',
        description: 'Save a contact',
        parameters: {
          type: 'object',
          properties: { email: { type: 'string' }, age: { type: 'integer' } },
          required: ['email'],
        },
        endpoint: {
          url: 'https://api.example.com/contacts/{{email}}',
          method: 'POST',
          headers: { 'X-Api-Key': '{{secrets.CRM_TOKEN}}' },
          body: { email: '{{email}}', age: '{{age}}', dialogId: 'todo_autofill_by_system' },
        },
      },
    ],
  };
}

/** Applies a mutation to a fresh base config and returns it. */
export function mutated(change: (config: Loose) => void): Loose {
  const config = baseConfig();
  change(config);
  return config;
}
