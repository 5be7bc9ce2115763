import type { ComponentChildren } from "preact";

/** A scrollable data table; an empty column name is an action column, named for screen readers only. */
export function Table({ columns, children }: { columns: readonly string[]; children: ComponentChildren }) {
  return (
    <div class="table">
      <table>
        <thead>
          <tr>
            {columns.map((column) => (
              <th scope="col" key={column}>
                {column === "" ? <span class="visually-hidden">Action</span> : column}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}
