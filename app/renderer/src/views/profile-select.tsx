// A <select> over catalogue entries (client or server profiles): the one
// shape the Start, Planner and Recommendations views each need.

export interface ProfileOption<Id extends string> {
  readonly id: Id;
  readonly label: string;
}

export function ProfileSelect<Id extends string>({
  id,
  value,
  options,
  onChange,
}: {
  id: string;
  value: Id;
  options: readonly ProfileOption<Id>[] | undefined;
  onChange: (value: Id) => void;
}) {
  return (
    <select id={id} value={value} onChange={(e) => onChange(e.target.value as Id)}>
      {options?.map((option) => (
        <option key={option.id} value={option.id}>
          {option.label}
        </option>
      ))}
    </select>
  );
}
