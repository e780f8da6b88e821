/** The environment variable that holds an agent's token, for the agent and for its clients (exec, list devices). */
export const TOKEN_ENV = 'MEMPLAN_AGENT_TOKEN';
