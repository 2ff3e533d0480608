export const users = [];
