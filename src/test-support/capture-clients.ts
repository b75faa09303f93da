// SMB clients nobody on the project wrote, each copying one file to a share
// and back as a person's program would, for the captures `pipefill analyze`
// is tested on (issue 53): Samba's smbclient, the `smbprotocol` package and
// impacket's client from PyPI (in the project's venv, src/lab/pypi-servers.ts),
// and a Go program on github.com/hirochachacha/go-smb2 built from the Go
// module proxy. Each checks the bytes it read back and removes its file.

import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../platform/package-root.js';
import { pypiServersPython } from '../lab/pypi-servers.js';

/** The go-smb2 release the tests were written against. */
export const GO_SMB2_MODULE = 'github.com/hirochachacha/go-smb2@v1.1.0';

/** smbprotocol's high-level API: a session, then the file written and read through its file objects. */
const SMBPROTOCOL_COPY = `
import os, sys, smbclient
host, port, user, source, name, encrypt = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5], sys.argv[6] == 'sealed'
smbclient.register_session(host, port=port, username=user, password=os.environ['PF_PASSWORD'], encrypt=encrypt)
path = rf'\\\\{host}\\share\\{name}'
data = open(source, 'rb').read()
with smbclient.open_file(path, mode='wb', port=port) as f:
    f.write(data)
with smbclient.open_file(path, mode='rb', port=port) as f:
    back = f.read()
smbclient.remove(path, port=port)
sys.exit(0 if back == data else 3)
`;

/** impacket's SMBConnection: SMB 3.1.1 sealed (its default against Samba), or SMB 2.1 signed. */
const IMPACKET_COPY = `
import io, os, sys
from impacket.smbconnection import SMBConnection
from impacket.smb3structs import SMB2_DIALECT_21
host, port, user, source, name, mode = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5], sys.argv[6]
connection = SMBConnection(host, host, sess_port=port, preferredDialect=None if mode == 'sealed' else SMB2_DIALECT_21)
connection.login(user, os.environ['PF_PASSWORD'])
data = open(source, 'rb').read()
connection.putFile('share', name, io.BytesIO(data).read)
back = io.BytesIO()
connection.getFile('share', name, back.write)
connection.deleteFile('share', name)
connection.logoff()
sys.exit(0 if back.getvalue() == data else 3)
`;

/** go-smb2: the file written whole, read back through io.ReadAll (a Go program's usual way), then removed. */
const GO_SMB2_COPY = `package main

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"os"

	"github.com/hirochachacha/go-smb2"
)

func main() {
	address, user, source, name := os.Args[1], os.Args[2], os.Args[3], os.Args[4]
	data, err := os.ReadFile(source)
	check(err)
	conn, err := net.Dial("tcp", address)
	check(err)
	defer conn.Close()
	dialer := &smb2.Dialer{Initiator: &smb2.NTLMInitiator{User: user, Password: os.Getenv("PF_PASSWORD")}}
	session, err := dialer.Dial(conn)
	check(err)
	defer session.Logoff()
	share, err := session.Mount("share")
	check(err)
	defer share.Umount()
	check(share.WriteFile(name, data, 0o644))
	file, err := share.Open(name)
	check(err)
	back, err := io.ReadAll(file)
	check(err)
	file.Close()
	check(share.Remove(name))
	if !bytes.Equal(back, data) {
		fmt.Fprintln(os.Stderr, "the file read back differs")
		os.Exit(3)
	}
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
`;

export type CaptureClient = 'smbclient' | 'smbprotocol' | 'impacket' | 'go-smb2';

export interface ClientCopy {
  readonly client: CaptureClient;
  /** Signed, or sealed where the client offers it (smbprotocol and impacket). */
  readonly protection: 'signed' | 'sealed';
}

export const goAvailable = (): boolean => spawnSync('go', ['version']).status === 0;

function runOrThrow(command: string, args: readonly string[], cwd: string): void {
  const result = spawnSync(command, args, { cwd, encoding: 'utf8', timeout: 300_000, env: { ...process.env, GOFLAGS: '-mod=mod' } });
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed: ${(result.stderr || result.stdout || String(result.error)).slice(-1500)}`);
}

/** The go-smb2 program, built once under .pipefill-tmp/ (git-ignored) from the module proxy. */
export function goSmb2Client(): string {
  const dir = join(packageRoot(), '.pipefill-tmp', 'go-smb2-client');
  const binary = join(dir, 'copy');
  if (existsSync(binary)) return binary;
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'main.go'), GO_SMB2_COPY);
  writeFileSync(join(dir, 'go.mod'), 'module pipefill.test/gosmb2copy\n\ngo 1.21\n');
  runOrThrow('go', ['get', GO_SMB2_MODULE], dir);
  runOrThrow('go', ['build', '-o', binary, '.'], dir);
  return binary;
}

/** The command that copies `source` to the share as `name` and back, with `client`; its password comes from PF_PASSWORD. */
export function clientCommand(copy: ClientCopy, share: { host: string; port: number }, user: string, source: string, name: string): string[] {
  const { host, port } = share;
  switch (copy.client) {
    case 'smbclient':
      return [
        'smbclient',
        `//${host}/share`,
        '-p',
        String(port),
        '-U',
        user,
        '-m',
        'SMB3',
        ...(copy.protection === 'sealed' ? ['--client-protection=encrypt'] : ['--client-protection=sign']),
        '-c',
        `put ${source} ${name}; get ${name} ${source}.back; del ${name}`,
      ];
    case 'smbprotocol':
      return [pypiServersPython(), '-c', SMBPROTOCOL_COPY, host, String(port), user, source, name, copy.protection];
    case 'impacket':
      return [pypiServersPython(), '-c', IMPACKET_COPY, host, String(port), user, source, name, copy.protection];
    case 'go-smb2':
      return [goSmb2Client(), `${host}:${port}`, user, source, name];
  }
}
