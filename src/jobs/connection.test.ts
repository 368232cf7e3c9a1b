import { describe, expect, it } from 'vitest';
import { UserError } from '../core/errors.js';
import { parseRedisUrl } from './connection.js';

describe('parseRedisUrl', () => {
  it('reads host, port, database and credentials, and masks the password when shown', () => {
    expect(parseRedisUrl('redis://user:s3cret@queue.lan:6380/2', '--queue')).toEqual({
      shown: 'redis://user:***@queue.lan:6380/2',
      host: 'queue.lan',
      port: 6380,
      db: 2,
      username: 'user',
      password: 's3cret',
    });
  });

  it('defaults to port 6379 and database 0', () => {
    expect(parseRedisUrl('redis://10.0.0.5', '--redis')).toMatchObject({ port: 6379, db: 0 });
  });

  it('refuses another scheme or a database that is not a number, naming the flag', () => {
    expect(() => parseRedisUrl('http://10.0.0.5', '--redis')).toThrow(UserError);
    expect(() => parseRedisUrl('queue.lan:6379', '--queue')).toThrow(
      /--queue must be a redis:\/\/ URL/,
    );
    expect(() => parseRedisUrl('redis://queue.lan/x', '--queue')).toThrow(/must be a number/);
  });
});
